import Foundation
import Testing

/// The support desk's Apple keys on the Subscriptions screen of the real console, at 80x24, 120x40 and
/// 200x60: `E` extends the selected subscription's renewal date (a bad DAYS refused at the prompt), `F`
/// refunds it with a reason (the row moves to refunded), `U` reverses the refund; an operator is told
/// why not. What the console did is in the audit log and the notification log, and `check` is clean.
@Suite(.serialized) struct SupportInTmuxTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    static let subscription = "2000000100000030"

    /// `:subscriptions`, shown.
    static func openSubscriptions(_ tmux: Tmux) throws {
        try tmux.keys(":")
        try tmux.literal("subscriptions")
        try tmux.keys("Enter")
        try tmux.waitFor("STATE")
    }

    @Test(arguments: [(80, 24), (120, 40), (200, 60)]) func refundExtendAndReverseFromTheSubscriptionsScreen(_ size: (Int, Int)) throws {
        let (width, height) = size
        let home = TemporaryHome()
        let tmux = try Tmux.console(home: home, width: width, height: height, arguments: ["--role", "support", "--as", "li.na"])
        try Self.openSubscriptions(tmux)
        try tmux.keys("/")
        try tmux.literal(Self.subscription)
        try tmux.keys("Enter")
        try tmux.waitFor("1 of 1")

        try tmux.keys("E")
        try tmux.waitFor("extend \(Self.subscription) of player")
        try tmux.literal("95 1")
        try tmux.keys("Enter")
        try tmux.waitFor("DAYS must be from 1 to 90")
        try tmux.keys("C-u")
        try tmux.literal("14 3")
        try tmux.keys("Enter")
        // Every support write asks y/n, naming the subscription, its player and Apple's reason in words.
        let asked = try tmux.waitFor("y/n")
        #expect(asked.contains("extend \(Self.subscription) of player"), "\(asked)")
        try tmux.keys("y")
        let extended = try tmux.waitFor("extended \(Self.subscription) by 14 days to 2026-12-17 (RENEWAL_EXTENDED)")
        #expect(extended.contains("2026-12-17"), "\(extended)")

        try tmux.keys("F")
        try tmux.waitFor("refund \(Self.subscription) of player")
        try tmux.keys("Enter")
        try tmux.waitFor("a reason is needed")
        try tmux.literal("app crashed at launch")
        try tmux.keys("Enter")
        let askedRefund = try tmux.waitFor("y/n")
        #expect(askedRefund.contains("the reason “app crashed"), "\(askedRefund)")
        try tmux.keys("y")
        // The state bar's counts are abbreviated at 80 columns (`ref 1`).
        let refundedLabel = width < 100 ? "ref" : "refunded"
        let refunded = try tmux.waitFor("REFUND for \(Self.subscription) written to the log")
        #expect(refunded.contains("\(refundedLabel) 1") && refunded.contains("● refunded"), "\(refunded)")
        // Who refunded and the reason as typed, where the status line has room for them.
        if width >= 200 { #expect(refunded.contains("support refund by li.na, reason: app crashed at launch"), "\(refunded)") }

        try tmux.keys("U")
        try tmux.waitFor("reverse the refund of \(Self.subscription) of player")
        try tmux.literal("goodwill")
        try tmux.keys("Enter")
        try tmux.waitFor("y/n")
        try tmux.keys("y")
        let reversed = try tmux.waitFor("REFUND_REVERSED for \(Self.subscription) written to the log")
        #expect(reversed.contains("● active") && reversed.contains("\(refundedLabel) 0"), "\(reversed)")
        if height >= 60 {
            // The detail pane's timeline shows the three notifications the desk wrote (after the store's
            // record of the chain's six paid periods).
            #expect(reversed.contains("RENEWAL_EXTENDED") && reversed.contains("REFUND_REVERSED"), "\(reversed)")
            // Marked as support's own actions, never "simulated" or unverified.
            #expect(reversed.contains("support REFUND_REVERSED") && !reversed.contains("simulated REFUND"), "\(reversed)")
            // Who did each and why, from the audit log, under its line.
            #expect(reversed.contains("li.na (support): goodwill") && reversed.contains("li.na (support): app crashed at launch"), "\(reversed)")
            #expect(reversed.contains("li.na (support): 14 days, Apple's reason 3 (service issue or outage)"), "\(reversed)")
        }
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))

        let audit = try Binary.run(["audit", "--action", "apple", "--json"], home: home)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        #expect(entries.compactMap { $0["action"] as? String } == ["apple.refund.reverse", "apple.refund", "apple.renewal.extend"])
        #expect(entries.allSatisfy { $0["actor"] as? String == "li.na" && $0["role"] as? String == "support" })
        let subs = try Binary.run(["subs", Self.subscription], home: home)
        #expect(subs.stdout.contains("unlocked          yes"), "\(subs.stdout)")
        try home.withDemoStore()
    }

    @Test func anOperatorIsToldWhyNot() throws {
        let home = TemporaryHome()
        let tmux = try Tmux.console(home: home, width: 120, height: 40, arguments: ["--role", "operator"])
        try Self.openSubscriptions(tmux)
        try tmux.keys("F")
        let refused = try tmux.waitFor("need the support or developer role")
        #expect(!refused.contains("refund 2000000100000030: reason"), "\(refused)")
        try tmux.keys("?")
        let help = try tmux.waitFor("Refund the selected subscription")
        #expect(help.contains("Extend the selected subscription's renewal date"), "\(help)")
        try tmux.keys("Escape")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
        #expect(try Binary.run(["audit", "--action", "apple"], home: home).stdout.isEmpty)
    }
}
