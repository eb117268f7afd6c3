import Foundation
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// `events import` against lines a fuzzer bends: dates at the ends of time, missing, out of order,
/// chains that collide, CRLF and blank lines, bytes that are not JSON. Whatever the lines, every one is
/// imported, skipped or rejected with a reason, and the store stays one `check` finds clean
/// (before, lines with an expiry of 0 or a purchase in year 9999 went in and `check` failed).
///
/// The seed is fixed so CI is repeatable; `STOREDESK_FUZZ_BATCHES=2000` runs many more locally.
@Suite struct ImportFuzzTests {
    /// Demo notifications, as JSON objects, to bend.
    static func templates() throws -> [[String: Any]] {
        let file = try DemoDatasetLoader.embeddedDirectory(environment: [:]).appendingPathComponent("notifications.jsonl")
        let text = try String(contentsOf: file, encoding: .utf8)
        return try text.split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static let extremes: [Int64] = [
        -1, 0, Int64.min, Int64.max, -62_167_219_200_000, 253_402_214_400_000, 1_215_647_999_999, 1_215_648_000_000,
        9_999_999_999_999, 4_102_444_800_000,
    ]

    /// One bent line from a template, around the demo clock.
    static func bend(_ template: [String: Any], _ rng: inout SeededGenerator, clock: Int64, serial: Int) -> String {
        var note = template
        let digits = String(serial)
        note["notificationUUID"] = "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        var data = note["data"] as? [String: Any] ?? [:]
        var transaction = data["transactionInfo"] as? [String: Any] ?? [:]
        var renewal = data["renewalInfo"] as? [String: Any] ?? [:]
        // A small pool of chains, so lines of one chain meet in any order.
        let chain = "55\(rng.below(6))"
        transaction["originalTransactionId"] = chain
        transaction["transactionId"] = chain + "-\(serial)"
        renewal["originalTransactionId"] = chain
        transaction.removeValue(forKey: "appAccountToken")
        let day: Int64 = 86_400_000
        func date(around base: Int64) -> Any? {
            switch rng.below(10) {
            case 0: return nil
            case 1, 2: return extremes[rng.below(extremes.count)]
            case 3: return "2026-0\(1 + rng.below(9))-1\(rng.below(9))T08:00:00Z"
            case 4: return "not a date"
            default: return base + Int64(rng.below(120)) * day - 60 * day
            }
        }
        // Dates that fit together (half the lines keep them), then bent.
        let purchase = clock - Int64(1 + rng.below(300)) * day
        transaction["purchaseDate"] = purchase
        transaction["originalPurchaseDate"] = purchase - Int64(rng.below(3)) * 30 * day
        transaction["expiresDate"] = purchase + 30 * day
        transaction.removeValue(forKey: "revocationDate")
        renewal.removeValue(forKey: "gracePeriodExpiresDate")
        note["signedDate"] = purchase + Int64(rng.below(3_600_000))
        if rng.chance(0.5) {
            for (key, base) in [("purchaseDate", purchase), ("originalPurchaseDate", purchase - 30 * day), ("expiresDate", purchase + 30 * day)]
            where rng.chance(0.4) {
                transaction[key] = date(around: base)
            }
            if rng.chance(0.2) { transaction["revocationDate"] = date(around: purchase + 10 * day) }
            if rng.chance(0.2) { renewal["gracePeriodExpiresDate"] = date(around: purchase + 35 * day) }
            if rng.chance(0.3) { note["signedDate"] = date(around: clock - 10 * day) ?? clock }
        }
        if rng.chance(0.05) { transaction["productId"] = "com.example.unknown" }
        data["transactionInfo"] = transaction
        data["renewalInfo"] = renewal
        note["data"] = data
        let json = (try? JSONSerialization.data(withJSONObject: note)) ?? Data()
        var line = String(decoding: json, as: UTF8.self)
        switch rng.below(20) {
        case 0: line = String(line.prefix(rng.below(line.count)))
        case 1: line = "[" + line + "]"
        case 2: line = "\u{1B}[2J" + line
        default: break
        }
        return line
    }

    @Test func bentLinesAreImportedOrRefusedAndTheStoreStaysClean() throws {
        let batches = Int(ProcessInfo.processInfo.environment["STOREDESK_FUZZ_BATCHES"] ?? "") ?? 12
        let templates = try Self.templates()
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("fuzz.sqlite"))
        var rng = SeededGenerator(seed: 13)
        var serial = 0
        var outcomes: [String: Int] = [:]
        for batch in 0..<batches {
            let clock = try #require(try store.clock()).millis
            var text = ""
            for _ in 0..<40 {
                serial += 1
                text += Self.bend(templates[rng.below(templates.count)], &rng, clock: clock, serial: serial)
                text += rng.chance(0.5) ? "\r\n" : "\n"
                if rng.chance(0.05) { text += "\n" }
            }
            let lines = SubscriptionEvent.decodeJSONLines(text)
            let report = try store.importNotifications(lines, source: "fuzz.jsonl", wallClock: Instant(millis: clock))
            #expect(report.lines.count == lines.entries.count + lines.failures.count)
            for line in report.lines {
                outcomes[line.outcome.name, default: 0] += 1
                if let reason = line.outcome.reason {
                    #expect(!reason.isEmpty)
                    #expect(!reason.contains("\n"))
                }
            }
            let findings = try store.check()
            #expect(findings.isEmpty, "batch \(batch): \(findings.prefix(3).map { "\($0.kind): \($0.message)" })")
            if !findings.isEmpty { break }
        }
        // The fuzzer reached both sides.
        #expect(outcomes["imported", default: 0] > 0)
        #expect(outcomes["rejected", default: 0] > 0)
        print("import fuzz: \(batches) batches of 40 lines: \(outcomes)")
    }
}
