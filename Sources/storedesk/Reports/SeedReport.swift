import Foundation
import StoreDeskStoreAPI
import StoreDeskUI

/// `seed`: how much was generated, how long it took, where it went.
struct SeedReport: CommandReport {
    struct JSON: Encodable {
        var path: String
        var seed: UInt64
        var elapsedSeconds: Double
        var counts: SeedSummary
    }

    var path: String
    var seed: UInt64
    var elapsedSeconds: Double
    var counts: SeedSummary

    var json: JSON { JSON(path: path, seed: seed, elapsedSeconds: (elapsedSeconds * 100).rounded() / 100, counts: counts) }

    var text: String {
        "seeded \(counts.users.formattedWithSeparators) users, \(counts.transactions.formattedWithSeparators) transactions, "
            + "\(counts.subscriptions.formattedWithSeparators) subscriptions, \(counts.grants.formattedWithSeparators) grants, "
            + "\(counts.restoreRequests.formattedWithSeparators) open restore requests in "
            + String(format: "%.1f s", elapsedSeconds) + " → \(path)"
    }
}
