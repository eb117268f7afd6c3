import Foundation
import StoreDeskCore

/// `callback verify`: the verdict on one body, the signs compared, the hashed string masked.
struct CallbackVerifyReport: CommandReport {
    struct JSON: Encodable {
        var valid: Bool
        var verdict: String
        @NullWhenAbsent var orderId: String?
        var reason: String
        var expectedSign: String
        @NullWhenAbsent var receivedSign: String?
        var hashedString: String
        var warnings: [Warning]

        struct Warning: Encodable {
            var code: String
            var field: String
            var message: String
        }

        enum CodingKeys: String, CodingKey {
            case valid, verdict, reason, warnings
            case orderId = "order_id", expectedSign = "expected_sign", receivedSign = "received_sign"
            case hashedString = "hashed_string"
        }
    }

    var check: CallbackVerification

    var json: JSON {
        JSON(
            valid: check.isValid, verdict: check.verdict.code, orderId: check.fields.text("order_id"), reason: check.reason,
            expectedSign: check.expectedSign, receivedSign: check.receivedSign, hashedString: check.maskedHashedString,
            warnings: check.warnings.map { .init(code: $0.code, field: $0.field, message: $0.message) })
    }

    var text: String {
        reportText([
            "\(check.isValid ? "valid" : "invalid") (\(check.verdict.code)) order_id=\(check.fields.text("order_id") ?? "-")",
            "reason    \(check.reason)",
            "expected  \(check.expectedSign)",
            "received  \(check.receivedSign ?? (check.receivedIsArray ? "(an array)" : "(none)"))",
            "hashed    \(check.maskedHashedString)",
        ] + check.warnings.map { "warning   \($0.message)" })
    }
}
