import Foundation
import Testing

/// `storedesk user history` through the real binary on a copy of the demo store.
@Suite struct UserHistoryCommandTests {
    static let support = ["--role", "support", "--as", "li.support"]

    /// A copy of the demo store where support declined 10000024's restore prompt (an audit line with it).
    static func declinedStore(_ home: TemporaryHome) throws -> String {
        try home.withDemoStore()
        let db = home.path("demo.sqlite")
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: db)
        let declined = try Binary.run(
            ["restore", "decline", "2000000100000093", "--reason", "refunded\nby Apple", "--db", db] + support, home: home)
        #expect(declined.status == 0, "\(declined.stderr)")
        return db
    }

    /// The store's record of a subscription before its first notification (written by a first support
    /// refund) reads `[store record]` in the text and `store_record` in `--json`, as the Subscriptions
    /// timeline labels it; it said `[unverified]`.
    @Test func theStoresRecordIsLabelledAsTheTimelineLabelsIt() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let db = home.path("demo.sqlite")
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: db)
        let refund = try Binary.run(["support", "refund", "2000000100000050", "--reason", "charged twice", "--db", db] + Self.support, home: home)
        #expect(refund.status == 0, "\(refund.stderr)")
        let text = try Binary.run(["user", "history", "10000002", "--kind", "notification", "--db", db], home: home)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(text.stdout)")
        #expect(lines.last?.contains("\t[store record] SUBSCRIBED/INITIAL_BUY") == true, "\(text.stdout)")
        // The refund is support's own action, marked so, never `[unverified]`.
        #expect(lines.first?.contains("\t[support] REFUND") == true, "\(text.stdout)")
        let json = try Binary.run(["user", "history", "10000002", "--kind", "notification", "--json", "--db", db], home: home)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let entries = object?["entries"] as? [[String: Any]] ?? []
        #expect(entries.compactMap { $0["trust"] as? String } == ["support", "store_record"], "\(json.stdout)")
    }

    @Test func textIsOneLineAnEntryNewestFirstWithIdsAndEscapedText() throws {
        let home = TemporaryHome()
        let db = try Self.declinedStore(home)
        let run = try Binary.run(["user", "history", "10000024", "--db", db], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let columns = lines.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(!lines.isEmpty && columns.allSatisfy { $0.count == 4 })
        #expect(columns.map { $0[0] } == columns.map { $0[0] }.sorted(by: >))
        // The decision, its timeline event and its audit line come first (one instant: by kind), the reason's
        // line break escaped.
        #expect(columns.prefix(3).map { $0[1] } == ["state", "restore", "audit"])
        #expect(columns[0][3] == "restore_declined: li.support (support) declined the restore: refunded\\nby Apple")
        #expect(columns[1][2].contains("transaction 2000000100000093"))
        #expect(columns[1][3] == "prompt 3 declined by li.support (support): refunded\\nby Apple")
        #expect(columns[2][3].hasPrefix("restore.decline by li.support"))
        #expect(columns.contains { $0[1] == "transaction" && $0[2].contains("app-order G20261117-0001") })

        let only = try Binary.run(
            ["user", "history", "10000024", "--kind", "transaction", "--kind", "audit", "--db", db], home: home)
        #expect(only.status == 0 && !only.stdout.isEmpty)
        let kinds = Set(only.stdout.split(separator: "\n").map { $0.split(separator: "\t")[1] })
        #expect(kinds == ["transaction", "audit"])

        let limited = try Binary.run(["user", "history", "10000024", "--limit", "2", "--db", db], home: home)
        #expect(limited.stdout.split(separator: "\n").map(String.init) == Array(lines.prefix(2)))
    }

    @Test func jsonKeepsTheREADMEShape() throws {
        let home = TemporaryHome()
        let db = try Self.declinedStore(home)
        let run = try Binary.run(["user", "history", "10000006", "--json", "--db", db], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let value = try jsonObject(run.stdout)
        #expect(Set(value.keys) == ["user_id", "entries", "next_before"] && value["user_id"] as? String == "10000006")
        #expect(value["next_before"] is NSNull)
        let entries = try #require(value["entries"] as? [[String: Any]])
        #expect(!entries.isEmpty)
        #expect(entries.allSatisfy {
            Set($0.keys) == [
                "at", "kind", "id", "transaction_id", "original_transaction_id", "order_id", "app_order_id", "detail", "trust",
            ]
        })
        let notifications = entries.filter { $0["kind"] as? String == "notification" }
        #expect(!notifications.isEmpty)
        #expect(notifications.allSatisfy { ["verified", "unverified"].contains($0["trust"] as? String) })
        #expect(entries.filter { $0["kind"] as? String != "notification" }.allSatisfy { $0["trust"] is NSNull })
    }

    /// `--limit` pages with `--before`: the cursor `--json` prints as `next_before` (the text names it on
    /// stderr) gives the next page, and the pages together are the whole history, without a line twice.
    @Test func beforePagesPastTheLimit() throws {
        let home = TemporaryHome()
        let db = try Self.declinedStore(home)
        let whole = try Binary.run(["user", "history", "10000024", "--db", db], home: home)
        let all = whole.stdout.split(separator: "\n").map(String.init)
        #expect(whole.status == 0 && all.count > 3 && whole.stderr.isEmpty, "\(whole.stderr)")

        var pages: [String] = []
        var current: String?
        var cursors: [String] = []
        repeat {
            let page = current.map { ["--before", $0] } ?? []
            let run = try Binary.run(["user", "history", "10000024", "--limit", "3", "--json", "--db", db] + page, home: home)
            #expect(run.status == 0, "\(run.stderr)")
            let value = try jsonObject(run.stdout)
            let entries = try #require(value["entries"] as? [[String: Any]])
            #expect(entries.count <= 3 && !entries.isEmpty)
            let next = value["next_before"] as? String
            let text = try Binary.run(["user", "history", "10000024", "--limit", "3", "--db", db] + page, home: home)
            pages += text.stdout.split(separator: "\n").map(String.init)
            // The text names the cursor of the next page on stderr, and only while one follows.
            #expect(text.stderr == (next.map { "older lines follow: --before \($0)\n" } ?? ""), "\(text.stderr)")
            if let next { cursors.append(next) }
            current = next
        } while current != nil && cursors.count < 20
        #expect(pages == all)
        #expect(cursors.count == (all.count - 1) / 3)
        #expect(cursors.allSatisfy { $0.split(separator: ":").count >= 3 })

        let bad = try Binary.run(["user", "history", "10000024", "--before", "yesterday", "--db", db], home: home)
        #expect(bad.status == 1 && bad.stdout.isEmpty)
        #expect(bad.stderr == "storedesk: --before takes a cursor as the last page gave it (MILLIS:KIND:ID), got 'yesterday'\n")
    }

    @Test func anUnknownUserABadLimitAndABadKindAreOneLineEach() throws {
        let home = TemporaryHome()
        let db = try Self.declinedStore(home)
        let cases: [([String], Int32, String)] = [
            (["user", "history", "nobody"], 1, "storedesk: no user with id 'nobody'\n"),
            (["user", "history", "10000024", "--limit", "0"], 1, "storedesk: --limit must be between 1 and 10000, got 0\n"),
            (["user", "history", "10000024", "--limit", "10001"], 1, "storedesk: --limit must be between 1 and 10000, got 10001\n"),
        ]
        for (arguments, status, stderr) in cases {
            let run = try Binary.run(arguments + ["--db", db], home: home)
            #expect(run.status == status && run.stderr == stderr && run.stdout.isEmpty, "\(arguments): \(run.stderr)")
        }
        let kind = try Binary.run(["user", "history", "10000024", "--kind", "bogus", "--db", db], home: home)
        #expect(kind.status == 64 && kind.stderr.split(separator: "\n").count == 1)
        #expect(kind.stderr.contains("'bogus'") && kind.stderr.contains("'notification'") && kind.stderr.contains("'transaction'"))
    }
}
