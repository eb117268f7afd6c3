import Crypto

/// The platform's callback signature: `sign = md5(http_build_query(ksort(fields without sign)) . AppKey)`.
///
/// The game server is PHP, so verification re-parses the body with `parse_str` and re-encodes every
/// key and value with `urlencode`; it never hashes the raw body. A body written with `%20`, lower-case
/// escapes or unencoded UTF-8 therefore verifies exactly when PHP says it does, and the sign is
/// compared with `strcasecmp` like the PHP code (an upper-case sign is fine).
///
///     let sign = CallbackSignature.sign(fields: ["order_id": "P1", "payment": "appstore"], appKey: key)
///     let check = CallbackSignature.verify(body: body, appKey: key)
///     check.verdict        // .valid
///     check.maskedHashedString   // "app=…&order_id=P1…a1b2****f6": safe to show
public enum CallbackSignature {
    /// The field that carries the signature; it is left out of what is hashed.
    public static let signField = "sign"

    /// Fields a callback must carry (non-empty, single values) before the game server acts on it.
    /// `gold` is required as well when `payment` is not "appstore": it decides what is granted.
    public static let requiredFields = [
        "order_id", "payment", "user_id", "client_id", "app_id", "product_id", "timestamp",
    ]

    /// The query the platform hashes (before the AppKey): ksorted, urlencoded, `sign` left out.
    public static func signedQuery(fields: PHPArray) -> String {
        var unsigned = fields
        unsigned.removeValue(forKey: PHPKey(signField))
        return PHPQuery.httpBuildQuery(PHPQuery.ksort(unsigned))
    }

    /// The exact string that is hashed: the signed query followed by the AppKey. Never log it: use
    /// `maskedHashedString` or `Masking.secret` for the key.
    public static func hashedString(fields: PHPArray, appKey: String) -> String {
        signedQuery(fields: fields) + appKey
    }

    /// The sign, as lower-case hex MD5, of fields given in any order (a `sign` among them is ignored).
    public static func sign(fields: PHPArray, appKey: String) -> String {
        md5Hex(hashedString(fields: fields, appKey: appKey))
    }

    /// The sign of a flat dictionary of fields.
    public static func sign(fields: [String: String], appKey: String) -> String {
        sign(fields: PHPArray(fields), appKey: appKey)
    }

    /// Verifies a form-encoded callback body as the PHP game server does.
    public static func verify(body: String, appKey: String) -> CallbackVerification {
        verify(bodyBytes: Array(body.utf8), appKey: appKey)
    }

    /// Verifies raw body bytes (they need not be UTF-8).
    ///
    /// The signature alone decides validity, as the platform's rule 3 says ("every callback that passes
    /// the signature check is legitimate data") and as PHP's `verify_sign` answers. A field that is
    /// missing, empty or odd (an `order_id` that is not a number) is a warning beside a valid verdict,
    /// never a reason to call a genuine body invalid; warnings are only looked for once the sign holds,
    /// so a field is never reported on before the body is known to be genuine.
    public static func verify(bodyBytes: [UInt8], appKey: String) -> CallbackVerification {
        verify(parsed: PHPQuery.parseStr(bytes: bodyBytes), appKey: appKey)
    }

    /// Verifies a body already parsed with `PHPQuery.parseStr` (`serve` reads `client_id` from it first,
    /// to find the AppKey, and does not parse the body twice).
    public static func verify(parsed: PHPArray, appKey: String) -> CallbackVerification {
        var fields = parsed
        let received = fields[signField]
        fields.removeValue(forKey: PHPKey(signField))
        let query = PHPQuery.httpBuildQuery(PHPQuery.ksort(fields))
        let hashed = query + appKey
        let expected = md5Hex(hashed)
        let verdict: CallbackVerification.Verdict
        let reason: String
        var warnings: [CallbackWarning] = []
        switch received {
        case nil, .string([])?:
            verdict = .missingSign
            reason = "the body carries no sign, so nothing in it can be trusted"
        case .array?:
            verdict = .badSignature
            reason = "the sign is an array (sign[]=…), not a single value, so it cannot match"
        case .string(let sign)?:
            let shown = String(decoding: sign, as: UTF8.self)
            if PHPQuery.strcasecmp(Array(expected.utf8), sign) != 0 {
                verdict = .badSignature
                reason =
                    "the received sign \(shown) does not match \(expected), the MD5 of the ksorted query and the AppKey"
            } else {
                verdict = .valid
                reason = "the sign matches \(expected), the MD5 of the ksorted query and the AppKey"
                warnings = self.warnings(for: fields)
            }
        }
        return CallbackVerification(
            verdict: verdict, fields: fields, query: query, hashedString: hashed,
            maskedHashedString: query + Masking.secret(appKey), expectedSign: expected,
            receivedSignBytes: received?.bytes, receivedIsArray: received?.array != nil, reason: reason,
            warnings: warnings)
    }

    /// What is missing or odd in a genuine body: every required field (in `requiredFields` order, then
    /// `gold`) that is not a non-empty single value, then an `order_id` that is not a number.
    static func warnings(for fields: PHPArray) -> [CallbackWarning] {
        var required = requiredFields
        if fields.text("payment") != ServerCallback.appStorePayment { required.append("gold") }
        var warnings: [CallbackWarning] = required.compactMap { name in
            guard let bytes = fields[name]?.bytes, !bytes.isEmpty else { return .missingField(name) }
            return nil
        }
        if let orderId = fields["order_id"]?.bytes, !orderId.isEmpty, !orderId.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            warnings.append(.orderIdNotNumeric(String(decoding: orderId, as: UTF8.self)))
        }
        return warnings
    }

    /// The first required field (in `requiredFields` order, then `gold`) that is not a non-empty string.
    static func missingField(in fields: PHPArray) -> String? {
        for warning in warnings(for: fields) {
            if case .missingField(let name) = warning { return name }
        }
        return nil
    }

    /// PHP `md5()`: lower-case hex of the MD5 of the string's UTF-8 bytes.
    static func md5Hex(_ text: String) -> String {
        let digest = Insecure.MD5.hash(data: Array(text.utf8))
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Everything a support engineer needs to see why a callback did or did not verify.
public struct CallbackVerification: Hashable, Sendable {
    public enum Verdict: Hashable, Sendable {
        case valid
        case badSignature
        case missingSign

        /// A stable code for logs and JSON: `valid`, `bad_signature`, `missing_sign`.
        public var code: String {
            switch self {
            case .valid: "valid"
            case .badSignature: "bad_signature"
            case .missingSign: "missing_sign"
            }
        }
    }

    public var verdict: Verdict
    /// The body as PHP's `parse_str` read it, without the sign.
    public var fields: PHPArray
    /// `http_build_query` of the ksorted fields: the part of the hashed string that is safe to show.
    public var query: String
    /// The exact string that was hashed (query + AppKey). Contains the secret: do not display or log.
    public var hashedString: String
    /// The hashed string with the AppKey masked by `Masking.secret`: what screens and logs show.
    public var maskedHashedString: String
    /// The sign the body should carry, lower-case hex.
    public var expectedSign: String
    /// The sign the body carried, as bytes (`nil` when absent or an array).
    public var receivedSignBytes: [UInt8]?
    /// Whether the body sent `sign[]=…` instead of a single value.
    public var receivedIsArray: Bool
    /// One sentence saying why, for the console and the log.
    public var reason: String
    /// What is missing or odd in a genuine body (empty unless the sign is valid).
    public var warnings: [CallbackWarning] = []

    public var isValid: Bool { verdict == .valid }

    /// The sign the body carried, as text (bytes that are not UTF-8 show as U+FFFD).
    public var receivedSign: String? { receivedSignBytes.map { String(decoding: $0, as: UTF8.self) } }
}

/// Something missing or odd in a callback whose sign is valid: said beside the verdict, never instead of it.
public enum CallbackWarning: Hashable, Sendable {
    /// A field of the platform's table is absent, empty or not a single value.
    case missingField(String)
    /// `order_id` is not a number, as the platform's field table makes it.
    case orderIdNotNumeric(String)

    /// A stable code for logs and JSON: `missing_field`, `order_id_not_numeric`.
    public var code: String {
        switch self {
        case .missingField: "missing_field"
        case .orderIdNotNumeric: "order_id_not_numeric"
        }
    }

    /// The field it is about.
    public var field: String {
        switch self {
        case .missingField(let name): name
        case .orderIdNotNumeric: "order_id"
        }
    }

    /// One sentence for the console and the log.
    public var message: String {
        switch self {
        case .missingField(let name): "\(name) is missing, empty or not a single value"
        case .orderIdNotNumeric(let value): "order_id \(value) is not a number (the platform's order ids are numbers)"
        }
    }
}
