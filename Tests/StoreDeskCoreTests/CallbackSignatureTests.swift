import Foundation
import StoreDeskCore
import Testing

@Suite("CallbackSignature: md5(http_build_query(ksort(fields)) + AppKey), verified as PHP verifies it")
struct CallbackSignatureTests {
    @Test("signing matches PHP: the query, the hashed string, the sign and the body", arguments: CallbackVectors.shared?.sign ?? [])
    func signMatchesPHP(vector: CallbackVectors.Sign) {
        let pairs = vector.fields.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        let fields = PHPArray(pairs)
        #expect(CallbackSignature.signedQuery(fields: fields) == vector.query)
        #expect(CallbackSignature.hashedString(fields: fields, appKey: vector.appKey) == vector.hashed)
        #expect(CallbackSignature.sign(fields: fields, appKey: vector.appKey) == vector.sign)
        #expect(CallbackSignature.sign(fields: Dictionary(pairs) { $1 }, appKey: vector.appKey) == vector.sign)

        let callback = ServerCallback(fields: pairs.map { ServerCallback.Field($0.0, $0.1) }, appKey: vector.appKey)
        #expect(callback.sign == vector.sign)
        #expect(callback.body == vector.body)
    }

    @Test("verification matches PHP's verdict and every intermediate string", arguments: CallbackVectors.shared?.verify ?? [])
    func verifyMatchesPHP(vector: CallbackVectors.Verify) throws {
        let body = try Hex.bytes(vector.bodyHex)
        let result = CallbackSignature.verify(bodyBytes: body, appKey: vector.appKey)
        #expect(result.verdict.code == vector.verdict)
        let missing = result.warnings.compactMap { warning -> String? in
            if case .missingField(let name) = warning { return name }
            return nil
        }
        #expect(missing.first == vector.missingField)
        #expect(result.query == vector.query)
        #expect(result.hashedString == vector.hashed)
        #expect(result.expectedSign == vector.expectedSign)
        #expect(result.receivedSignBytes.map(Hex.string) == vector.receivedSignHex)
        #expect(result.receivedIsArray == vector.receivedIsArray)
        #expect(!result.reason.isEmpty)
        if let text = vector.body {
            #expect(CallbackSignature.verify(body: text, appKey: vector.appKey) == result)
        }
    }

    @Test("the masked hashed string hides the AppKey with Masking.secret")
    func maskedHashedString() {
        let key = PaymentFixtures.app.appKey
        let body = ServerCallback(fields: [.init("order_id", "P1"), .init("payment", "appstore")], appKey: key).body
        let result = CallbackSignature.verify(body: body, appKey: key)
        #expect(result.hashedString == "order_id=P1&payment=appstore" + key)
        #expect(result.maskedHashedString == "order_id=P1&payment=appstore" + Masking.secret(key))
        #expect(!result.maskedHashedString.contains(key))
    }

    @Test("an upper-case sign is valid, as strcasecmp says")
    func upperCaseSign() {
        let key = PaymentFixtures.app.appKey
        let fields = validFields()
        let sign = CallbackSignature.sign(fields: fields, appKey: key).uppercased()
        let body = PHPQuery.httpBuildQuery(PHPArray(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } + [("sign", sign)]))
        let result = CallbackSignature.verify(body: body, appKey: key)
        #expect(result.verdict == .valid)
        #expect(result.receivedSign == sign)
        #expect(result.expectedSign == sign.lowercased())
    }

    @Test("the raw body is never hashed: %20, lower-case escapes and raw UTF-8 all verify")
    func reencodedNotRaw() {
        let key = PaymentFixtures.app.appKey
        var fields = validFields()
        fields["ext"] = "中 文"
        let sign = CallbackSignature.sign(fields: fields, appKey: key)
        let unsigned = fields.map { "\($0.key)=\(PHPQuery.urlencode($0.value))" }.joined(separator: "&")
        for body in [
            unsigned, unsigned.replacingOccurrences(of: "+", with: "%20"),
            unsigned.replacingOccurrences(of: "%E4%B8%AD", with: "%e4%b8%ad"),
            unsigned.replacingOccurrences(of: "%E4%B8%AD", with: "中"),
        ] {
            #expect(CallbackSignature.verify(body: body + "&sign=" + sign, appKey: key).verdict == .valid)
        }
    }

    @Test("a tampered field, a tampered sign and a missing sign are refused with a reason")
    func refusals() {
        let key = PaymentFixtures.app.appKey
        let body = ServerCallback(fields: validFields().map { .init($0.key, $0.value) }, appKey: key).body
        let tampered = body.replacingOccurrences(of: "user_id=u1", with: "user_id=u2")
        #expect(CallbackSignature.verify(body: tampered, appKey: key).verdict == .badSignature)

        let sign = CallbackSignature.verify(body: body, appKey: key).expectedSign
        let badSign = body.replacingOccurrences(of: sign, with: String(sign.reversed()))
        let refused = CallbackSignature.verify(body: badSign, appKey: key)
        #expect(refused.verdict == .badSignature)
        #expect(refused.reason.contains(String(sign.reversed())))

        let unsigned = body.replacingOccurrences(of: "&sign=" + sign, with: "")
        let missing = CallbackSignature.verify(body: unsigned, appKey: key)
        #expect(missing.verdict == .missingSign)
        #expect(missing.receivedSign == nil)
        #expect(missing.expectedSign == sign)
    }

    @Test("a correctly signed body without a required field is valid (the sign decides), with a warning naming the field")
    func missingRequiredField() {
        let key = PaymentFixtures.app.appKey
        for name in CallbackSignature.requiredFields {
            var fields = validFields()
            fields[name] = nil
            let body = ServerCallback(fields: fields.map { .init($0.key, $0.value) }, appKey: key).body
            let result = CallbackSignature.verify(body: body, appKey: key)
            #expect(result.verdict == .valid)
            #expect(result.warnings.contains(.missingField(name)))
            #expect(result.warnings.contains { $0.message.contains(name) })
        }
        var other = validFields()
        other["payment"] = "wechat"
        let body = ServerCallback(fields: other.map { .init($0.key, $0.value) }, appKey: key).body
        let result = CallbackSignature.verify(body: body, appKey: key)
        #expect(result.isValid)
        #expect(result.warnings == [.missingField("gold"), .orderIdNotNumeric("P1")])
    }

    @Test("an empty Sid (app_id) in a signed body is valid, as PHP's verify_sign answers; a bad sign gets no warnings")
    func emptySidIsValid() {
        let key = PaymentFixtures.app.appKey
        var fields = validFields()
        fields["app_id"] = ""
        fields["order_id"] = "20260301000123"
        let body = ServerCallback(fields: fields.map { .init($0.key, $0.value) }, appKey: key).body
        let result = CallbackSignature.verify(body: body, appKey: key)
        #expect(result.isValid)
        #expect(result.warnings == [.missingField("app_id")])
        let forged = CallbackSignature.verify(body: body, appKey: "another key")
        #expect(forged.verdict == .badSignature)
        #expect(forged.warnings.isEmpty)
    }

    private func validFields() -> [String: String] {
        [
            "order_id": "P1", "payment": "appstore", "user_id": "u1", "client_id": "app_galaxy", "app_id": "s1",
            "product_id": "com.example.gems.60", "timestamp": "1772352000", "ext": "",
        ]
    }
}
