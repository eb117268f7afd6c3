import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `simulate`: what the run did, per state, callback verdict and grant.
struct SimulateReport: CommandReport {
    struct JSON: Encodable {
        var path: String
        var run: Int64
        var tookOverFrom: [Int64]
        var seconds: Int
        var rate: Double
        var seed: UInt64
        var faults: [String]
        var storekitSettings: [String: [String]]
        var summary: PaymentSimulation.Summary

        enum CodingKeys: String, CodingKey {
            case path, run, seconds, rate, seed, faults, summary
            case tookOverFrom = "took_over_from", storekitSettings = "storekit_settings"
        }
    }

    var summary: PaymentSimulation.Summary
    var run: Int64
    var tookOver: [Int64]
    var path: String
    var seconds: Int
    var rate: Double
    var seed: UInt64
    var faults: [PaymentFault]
    var storeKit: [String: StoreKitPurchaseTesting]

    /// Apps whose StoreKit configuration turns Ask to Buy or failing transactions on, for all their purchases.
    var storeKitApps: [(String, [String])] {
        storeKit.keys.sorted().map { id -> (String, [String]) in
            let testing = storeKit[id]
            return (id, (testing?.askToBuy == true ? ["askToBuy"] : []) + (testing?.failTransactions == true ? ["failTransactions"] : []))
        }
    }

    var json: JSON {
        JSON(
            path: path, run: run, tookOverFrom: tookOver, seconds: seconds, rate: rate, seed: seed,
            faults: faults.map(\.description), storekitSettings: Dictionary(uniqueKeysWithValues: storeKitApps),
            summary: summary)
    }

    var text: String {
        let states = TransactionState.allCases.compactMap { state in
            summary.states[state.rawValue].map { "\(state.rawValue) \($0.formattedWithSeparators)" }
        }
        let faultText = faults.isEmpty ? "" : ", faults " + faults.map(\.description).joined(separator: " ")
        let simulated: String = "\(seconds) s at \(rate)/s, seed \(seed)" + faultText + " → \(path)"
        let attempts: String =
            "\(summary.attempts.formattedWithSeparators) (\(summary.requestsRefused.formattedWithSeparators) requests refused, "
            + "\(summary.purchasesRefused.formattedWithSeparators) purchases refused: already open)"
        let callbacks: [String] = [
            "accepted \(summary.callbacksAccepted.formattedWithSeparators)", "rejected \(summary.callbacksRejected.formattedWithSeparators)",
            "duplicate \(summary.callbacksDuplicate.formattedWithSeparators)", "dropped \(summary.callbacksDropped.formattedWithSeparators)",
            "unanswered \(summary.callbacksUnanswered.formattedWithSeparators)",
        ]
        let dropped: String =
            "\(summary.droppedOrders.formattedWithSeparators) (paid, client crashed before finishing: restore prompt at next login)"
        var lines: [(String, String)] = [
            ("simulated", simulated),
            ("attempts", attempts),
            ("states", states.isEmpty ? "none" : states.joined(separator: ", ")),
            ("finished", summary.finished.formattedWithSeparators),
            ("callbacks", callbacks.joined(separator: ", ")),
            ("grants", summary.grants.formattedWithSeparators),
            ("dropped orders", dropped),
            ("awaiting", "\(summary.awaitingCallback.formattedWithSeparators) paid, not yet finished when the run ended"),
            ("events", summary.events.formattedWithSeparators),
            ("resumed", Self.resumed(summary.resumed, from: tookOver)),
            ("run", "\(run): its order ids count up from \(Self.firstOrderId(run))"),
        ]
        if summary.http.attempts > 0 {
            lines.insert(("http", summary.http.text), at: lines.firstIndex { $0.0 == "grants" } ?? lines.count)
        }
        if !storeKitApps.isEmpty {
            let text = storeKitApps.map { "app \($0.0): \($0.1.joined(separator: ", "))" }.joined(separator: "; ")
            lines.insert(("storekit", text + " (from the app's StoreKit configuration, every purchase)"), at: 1)
        }
        return reportText(lines.map { label, value in label.padding(toLength: 16, withPad: " ", startingAt: 0) + value })
    }

    private static func firstOrderId(_ run: Int64) -> String {
        var numbers = OrderNumbers(run: run)
        return numbers?.next() ?? "?"
    }

    /// `3 left in flight by runs that are gone (4, 7), taken over`.
    private static func resumed(_ count: Int, from runs: [Int64]) -> String {
        let whose = runs.isEmpty ? "an earlier run" : "runs that are gone (" + runs.map(String.init).joined(separator: ", ") + ")"
        return "\(count.formattedWithSeparators) left in flight by \(whose), taken over"
    }
}
