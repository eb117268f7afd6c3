import Foundation
import Testing

/// `storedesk find` on the real binary over the demo store: the ids a ticket gives, the table, the
/// `--json` shape the README documents, and the refusal of empty text.
@Suite struct FindCommandTests {
    /// A home whose default store is the demo (made by a first `check`).
    static func demoHome() throws -> TemporaryHome {
        let home = TemporaryHome()
        try home.withDemoStore()
        return home
    }

    static let resultKeys: Set<String> = [
        "kind", "field", "match", "matched", "user_id", "user_name", "transaction_id", "original_transaction_id", "order_id",
        "restore_prompt_id", "notification_uuid", "game_account",
    ]

    @Test func aTicketsIdsAreFoundAsTheirKind() throws {
        let home = try Self.demoHome()
        let cases: [(String, String, String)] = [
            ("2611120001", "order", "order_id"), ("G20261111-0004", "transaction", "app_order_id"),
            ("2000000100000093", "transaction", "transaction_id"), ("apple.zhangwei88", "game_account", "apple_id"),
            ("r10000001-1", "game_account", "role_id"), ("10000001", "player", "player_id"), ("张伟", "player", "name"),
            ("13800000000", "player", "phone"),
        ]
        for (text, kind, field) in cases {
            let run = try Binary.run(["find", text], home: home)
            #expect(run.status == 0, "\(text): \(run.stderr)")
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.first?.hasPrefix("KIND") == true)
            let first = lines.dropFirst().first.map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
            #expect(first?.prefix(3) == [kind, field, "exact"], "\(text): \(run.stdout)")
        }
        let phone = try Binary.run(["find", "13800000000"], home: home)
        #expect(phone.stdout.contains("138****0000") && !phone.stdout.contains("13800000000"))
        let none = try Binary.run(["find", "no-such-id"], home: home)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr == "nothing matches 'no-such-id'\n")
    }

    @Test func jsonKeepsTheREADMEShape() throws {
        let home = try Self.demoHome()
        let run = try Binary.run(["find", "2000000100000093", "--json"], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let results = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        #expect(results.count == 2)
        for result in results { #expect(Set(result.keys) == Self.resultKeys) }
        #expect(results.map { $0["kind"] as? String } == ["transaction", "restore_prompt"])
        #expect(results.first?["user_id"] as? String == "10000024")
        #expect(results.last?["restore_prompt_id"] as? Int == 3)
        #expect(results.first?["game_account"] is NSNull)
        let limited = try Binary.run(["find", "2000000100", "--limit", "3", "--json"], home: home)
        #expect((try JSONSerialization.jsonObject(with: Data(limited.stdout.utf8)) as? [Any])?.count == 3)
    }

    @Test func emptyTextAndABadLimitAreRefusedInOneLine() throws {
        let home = try Self.demoHome()
        for arguments in [["find", ""], ["find", "   "], ["find", "x", "--limit", "0"]] {
            let run = try Binary.run(arguments, home: home)
            #expect(run.status != 0 && run.stdout.isEmpty, "\(arguments)")
            #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.hasPrefix("storedesk: "), "\(arguments): \(run.stderr)")
        }
    }

    @Test func storedTextIsShownOnOneLineWithControlsEscaped() throws {
        let home = try Self.demoHome()
        let db = home.defaultStore
        #expect(try shell("sqlite3 '\(db)' \"UPDATE user SET name = 'Evil' || char(27) || ']0;x' || char(7) || char(10) || 'line' WHERE id = '10000002'\"").status == 0)
        let run = try Binary.run(["find", "10000002"], home: home)
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\u{1B}") && run.stdout.split(separator: "\n").count == 2, "\(run.stdout)")
        let byName = try Binary.run(["find", "Evil"], home: home)
        #expect(byName.stdout.contains("Evil\\e]0;x\\a\\nline"), "\(byName.stdout)")
    }

    /// A ticket with only an order id, in a real terminal: typed at Users' `/`, no player matches, Enter finds
    /// the order, and Enter on it opens its player's history (the transaction is finished, so not in the Queue).
    @Test func aTicketsOrderIdIsFoundFromUsersInTmux() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home)
        try tmux.literal("/2501050001")
        try tmux.waitFor("enter finds it as any id (:find)")
        try tmux.keys("Enter")
        try tmux.waitFor("Find · “2501050001” · 1 of 1")
        let found = try tmux.waitFor("enter opens 10000017's history on Users")
        #expect(found.contains("order, its order id (exact)") && found.contains("Find · “2501050001” · 1 of 1"), "\(found)")
        try tmux.keys("Enter")
        try tmux.waitFor("History · 10000017")
        try tmux.literal(":find 2000000100000093")
        try tmux.keys("Enter")
        try tmux.waitFor("Find · “2000000100000093” · 1 of 2")
        try tmux.keys("Enter")
        try tmux.waitFor("Queue · 1 of 1 · filter “2000000100000093”")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
    }
}
