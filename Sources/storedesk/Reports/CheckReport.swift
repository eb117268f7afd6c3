import Foundation
import StoreDeskStoreAPI

/// `check`: whether the store is clean, and each violation.
struct CheckReport: CommandReport {
    struct JSON: Encodable {
        var clean: Bool
        var violations: [StoreCheckViolation]
    }

    var path: String
    var violations: [StoreCheckViolation]

    var json: JSON { JSON(clean: violations.isEmpty, violations: violations) }

    var text: String {
        guard !violations.isEmpty else { return reportText(["ok: \(path) is clean"]) }
        return reportText(
            violations.map { "\($0.kind): \($0.message)" } + ["\(violations.count) violation\(violations.count == 1 ? "" : "s") in \(path)"])
    }
}
