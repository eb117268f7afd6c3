import Foundation
import Testing

/// `storedesk callback sign` and `verify`, through the real binary.
@Suite struct CallbackCommandTests {
    static let appKey = "k3y-0f-the-demo-app-1234"
    static let lines = """
        order_id=P100
        payment=appstore
        sub_payment=Production
        user_id=10000001
        client_id=1001
        app=星辰 Saga
        app_id=s1
        app_order_id=G-77
        role_id=r9
        product_id=gems.60
        ext=a b+c&d=e%~*"'😀
        timestamp=1700000000

        """

    static func sign(_ home: TemporaryHome, _ lines: String = lines) throws -> String {
        let signed = try Binary.run(["callback", "sign", "--app-key", appKey], home: home, stdin: lines)
        #expect(signed.status == 0, "\(signed.stderr)")
        return signed.stdout.trimmingCharacters(in: .newlines)
    }

    static func verify(_ home: TemporaryHome, _ body: String, json: Bool = true) throws -> (Binary.Result, [String: Any]?) {
        let result = try Binary.run(
            ["callback", "verify", "--app-key", appKey] + (json ? ["--json"] : []), home: home, stdin: body + "\n")
        let object = json ? try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] : nil
        return (result, object)
    }

    @Test func signThenVerifyRoundTrips() throws {
        let home = TemporaryHome()
        let body = try Self.sign(home)
        #expect(body.hasPrefix("order_id=P100&payment=appstore&"))
        #expect(body.contains("&sign="))
        #expect(!body.contains(Self.appKey))
        let (result, object) = try Self.verify(home, body)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(object?["valid"] as? Bool == true)
        #expect(object?["order_id"] as? String == "P100")
        #expect(object?["verdict"] as? String == "valid")
        #expect((object?["reason"] as? String)?.isEmpty == false)
        #expect(object?["expected_sign"] as? String == object?["received_sign"] as? String)
        let hashed = object?["hashed_string"] as? String ?? ""
        #expect(hashed.hasSuffix("k3y-****34"))
        #expect(!result.stdout.contains(Self.appKey))
        let text = try Self.verify(home, body, json: false).0
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("valid (valid) order_id=P100"))
        #expect(!text.stdout.contains(Self.appKey))
    }

    @Test func aSignedBodyWithAnEmptySidIsValidWithWarningsBesideTheVerdict() throws {
        let home = TemporaryHome()
        let body = try Self.sign(home, Self.lines.replacingOccurrences(of: "app_id=s1", with: "app_id="))
        let (result, object) = try Self.verify(home, body)
        #expect(result.status == 0, "the sign decides: PHP's verify_sign answers true")
        #expect(object?["valid"] as? Bool == true)
        let warnings = object?["warnings"] as? [[String: Any]] ?? []
        #expect(warnings.map { $0["code"] as? String } == ["missing_field", "order_id_not_numeric"])
        #expect(warnings.first?["field"] as? String == "app_id")
        let text = try Self.verify(home, body, json: false).0
        #expect(text.stdout.contains("warning   app_id is missing, empty or not a single value"))
        #expect(text.stdout.contains("warning   order_id P100 is not a number"))
    }

    @Test func aTamperedFieldIsInvalid() throws {
        let home = TemporaryHome()
        let body = try Self.sign(home)
        let tampered = body.replacingOccurrences(of: "product_id=gems.60", with: "product_id=gems.6480")
        #expect(tampered != body)
        let (result, object) = try Self.verify(home, tampered)
        #expect(result.status == 1)
        #expect(object?["valid"] as? Bool == false)
        #expect(object?["verdict"] as? String == "bad_signature")
        #expect(object?["order_id"] as? String == "P100")
        #expect(object?["expected_sign"] as? String != object?["received_sign"] as? String)
        #expect(!result.stdout.contains(Self.appKey))
    }

    @Test func aTamperedSignIsInvalidAndAnUpperCaseSignIsAccepted() throws {
        let home = TemporaryHome()
        let body = try Self.sign(home)
        guard let range = body.range(of: "&sign=") else {
            Issue.record("no sign in \(body)")
            return
        }
        let sign = String(body[range.upperBound...])
        #expect(sign.count == 32)
        let prefix = String(body[..<range.upperBound])
        let flipped = (sign.first == "0" ? "1" : "0") + sign.dropFirst()
        let (bad, badObject) = try Self.verify(home, prefix + flipped)
        #expect(bad.status == 1)
        #expect(badObject?["valid"] as? Bool == false)
        #expect(badObject?["received_sign"] as? String == flipped)
        let (upper, upperObject) = try Self.verify(home, prefix + sign.uppercased())
        #expect(upper.status == 0, "\(upper.stdout)")
        #expect(upperObject?["valid"] as? Bool == true)
        let (missing, missingObject) = try Self.verify(home, String(prefix.dropLast("&sign=".count)))
        #expect(missing.status == 1)
        #expect(missingObject?["verdict"] as? String == "missing_sign")
        let wrongKey = try Binary.run(["callback", "verify", "--app-key", "another-key-999"], home: home, stdin: prefix + sign)
        #expect(wrongKey.status == 1)
        #expect(wrongKey.stdout.hasPrefix("invalid (bad_signature)"))
    }

    @Test func badInputIsOneLine() throws {
        let home = TemporaryHome()
        let bad = try Binary.run(["callback", "sign", "--app-key", Self.appKey], home: home, stdin: "order_id=1\nnot a field\n")
        #expect(bad.status != 0)
        #expect(bad.stderr == "storedesk: stdin line 2 is not key=value: not a field\n")
        let empty = try Binary.run(["callback", "verify", "--app-key", ""], home: home, stdin: "a=1")
        #expect(empty.status == 1)
        #expect(empty.stderr == "storedesk: --app-key must not be empty\n")
    }
}
