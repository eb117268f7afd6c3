import Foundation
import Testing

/// `storedesk user history` through the real binary on a copy of the demo store.
@Suite struct UserHistoryCommandTests {
    static let support = ["--role", "support", "--as", "li.support"]

    /// A copy of the demo store where support declined 10000024's restore prompt (an audit line with it).
    static func declinedStore(_ home: TemporaryHome) throws -> String {
        #expect(try Binary.run(["check"], home: home).status == 0)
        let db = home.path("demo.sqlite")
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: db)
        let declined = try Binary.run(
            ["restore", "decline", "2000000100000093", "--reason", "refunded\nby Apple", "--db", db] + support, home: home)
        #expect(declined.status == 0, "\(declined.stderr)")
        return db
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
        #expect(columns[1][2].contains("tx 2000000100000093"))
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
        #expect(Set(value.keys) == ["user_id", "entries"] && value["user_id"] as? String == "10000006")
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
