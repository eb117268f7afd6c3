import Foundation
import StoreDeskCore

/// `events simulate --json`: the demo subscription, its notifications, and its state at the end.
struct SimulateJSON: Encodable, CommandReport {
    var originalTransactionId, userId, productId, rate, start, end: String
    var imported, rejected: Int
    var notifications: [SubsJSON.EventJSON]
    @NullWhenAbsent var subscription: SubsJSON.InfoJSON?

    var json: Self { self }

    var text: String {
        var lines = ["demo \(originalTransactionId): \(userId) subscribed to \(productId) at \(rate), \(start) → \(end)"]
        lines += notifications.map { "  \($0.signedDate)  \($0.name)  \($0.summary)" }
        if let info = subscription {
            lines.append("at the end: \(info.state), expires \(info.expiresDate), access \(info.entitled ? "yes" : "no")")
        }
        lines.append("imported \(imported), rejected \(rejected)")
        return reportText(lines)
    }
}
