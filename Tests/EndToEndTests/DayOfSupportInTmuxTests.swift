import Foundation
import Testing

/// A day of support in a real terminal, as a new support person tries it: a support person with no `--as` finds the
/// restore prompts, confirms one, declines one after an empty Enter, quits, comes back later and declines
/// another. The audit then reads newest first across both sessions, every line by the login name, each
/// reason exactly as typed, and the store's time line never went back.
@Suite struct DayOfSupportInTmuxTests {
    /// A ticket gives only the order id on the player's receipt. At 80x24, `:find` finds it, enter opens its
    /// player's whole story (its transaction is finished, so not in the Queue), and the transaction's id is
    /// there whole, not cut at the pane's edge.
    @Test func aTicketWithOnlyAnOrderIdFindsThePlayersStory() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, width: 80, height: 24, arguments: ["--role", "support"])
        try tmux.literal(":find 2611120001")
        try tmux.keys("Enter")
        var screen = try tmux.waitFor("enter opens 10000001's history on")
        // The order, and the restore prompt its transaction had (confirmed): every kind the id names.
        #expect(screen.contains("Find · “2611120001” · 1 of 2") && screen.contains("order, its order id (exact)"), "\(screen)")
        try tmux.keys("Enter")
        screen = try tmux.waitFor("History · 10000001")
        #expect(screen.contains("transaction 2000000100000088"), "\(screen)")
        #expect(!screen.contains("transaction 20…"), "\(screen)")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
    }

    @Test func aDayOfSupportAcrossTwoSessions() throws {
        let home = TemporaryHome()

        // Morning: the console as the login name (USER=e2e in the tmux environment), no `--as`.
        var tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support")
        var screen = try tmux.waitFor("support · e2e")
        #expect(!screen.contains("unknown"), "\(screen)")
        try tmux.keys("3")
        try tmux.waitFor("of 3 ──")

        // Confirm the oldest prompt onto the paying account: account, Sid, Role_Id, then y on the key.
        try tmux.confirmTheFirstPromptOntoThePayingAccount()
        try tmux.waitFor("restored 2000000100000093 onto 10000024")
        try tmux.waitFor("of 2 ──")

        // Decline the next one: Enter on the empty reason keeps the prompt; what is typed next is saved whole.
        try tmux.keys("g", "d")
        try tmux.waitFor("reason to decline 2000000100000095: ")
        try tmux.keys("Enter")
        try tmux.waitFor("a decline needs a reason the player can be told")
        try tmux.literal("refunded by Apple")
        try tmux.waitFor("reason to decline 2000000100000095: refunded by Apple")
        try tmux.keys("Enter")
        try tmux.waitFor("decline 2000000100000095 with the reason “refunded by Apple”? y/n")
        try tmux.literal("y")
        try tmux.waitFor("declined 2000000100000095: refunded by Apple")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))

        // Afternoon: a new console on the same store. Its clock starts where the morning's writes left it.
        try? FileManager.default.removeItem(atPath: home.path("after.txt"))
        tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support")
        screen = try tmux.waitFor("support · e2e")
        try tmux.keys("3")
        try tmux.waitFor("of 1 ──")
        try tmux.keys("g", "d")
        try tmux.waitFor("reason to decline 2000000100000096: ")
        try tmux.literal("duplicate of ticket 4471")
        try tmux.keys("Enter")
        try tmux.waitFor("y/n")
        try tmux.literal("y")
        try tmux.waitFor("declined 2000000100000096: duplicate of ticket 4471")
        // The Audit screen's newest line is the afternoon's decline.
        try tmux.keys("4")
        screen = try tmux.waitFor("restore.decline")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))

        // The audit, newest first: the afternoon's decline, the morning's decline, the morning's confirm,
        // each by the login name; the sequence and the stamps never go back.
        let audit = try Binary.run(["audit", "--json"], home: home)
        #expect(audit.status == 0, "\(audit.stderr)")
        let entries = try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]] ?? []
        // The demo store's history has restore lines of its own, older than the day's three.
        let ours = Array(entries.filter { ($0["action"] as? String)?.hasPrefix("restore.") == true }.prefix(3))
        #expect(ours.map { $0["subject"] as? String ?? "" } == [
            "transaction 2000000100000096", "transaction 2000000100000095", "transaction 2000000100000093",
        ], "\(audit.stdout)")
        #expect(ours.map { $0["action"] as? String ?? "" } == ["restore.decline", "restore.decline", "restore.confirm"])
        #expect(ours.allSatisfy { $0["actor"] as? String == "e2e" && $0["role"] as? String == "support" }, "\(audit.stdout)")
        #expect(ours.first?["detail"] as? String == "duplicate of ticket 4471")
        #expect(ours.dropFirst().first?["detail"] as? String == "refunded by Apple")
        let ids = entries.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted(by: >), "newest first by the audit's sequence: \(ids)")
        let stamps = entries.compactMap { $0["at"] as? String }
        #expect(stamps == stamps.sorted(by: >), "no line stamped before one written earlier: \(stamps)")
        #expect(!entries.contains { $0["actor"] as? String == "unknown" })

        // Nothing is stamped after the store's clock, and the store is clean.
        let check = try Binary.run(["check", "--json"], home: home)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(!check.stdout.contains("stamp_after_clock"))
    }

    /// A console that only looked still moves the store's time line on: the clock its header showed when
    /// it closed is where the next command starts, never earlier.
    @Test func closingAConsoleKeepsItsClockForTheNextCommand() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support")
        // The demo store's clock runs on from 08:00:00 while the console is open.
        let screen = try tmux.waitFor("store clock 2026-11-20 08:00:03")
        #expect(screen.contains("store clock 2026-11-20 08:00:03"))
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
        let listed = try Binary.run(["restore", "list"], home: home)
        #expect(listed.status == 0, "\(listed.stderr)")
        let note = try #require(listed.stderr.split(separator: "\n").first { $0.hasPrefix("at store clock ") }, "\(listed.stderr)")
        let stamp = String(note.dropFirst("at store clock ".count))
        #expect(stamp >= "2026-11-20T08:00:03Z", "the next command started at \(stamp), before the console closed")
    }
}
