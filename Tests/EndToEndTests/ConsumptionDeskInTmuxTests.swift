import Foundation
import Testing

/// The consumption-request desk (`:consumption`) and the app-account-token key (`T` on Subscriptions) of
/// the real console, at 80x24, 120x40 and 200x60: a request raised for a consumable (a bad reason refused
/// at the prompt), answered field by field (a bad field refused, then fixed), the token set (a bad one
/// refused, nothing written); each audited as the signed-in staff member, and `check` is clean.
@Suite(.serialized) struct ConsumptionDeskInTmuxTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    /// A demo consumable (gems) and a demo subscription.
    static let consumable = "2000000100000001"
    static let subscription = "2000000100000030"
    static let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

    static func show(_ tmux: Tmux, _ screen: String, waitingFor text: String) throws {
        try tmux.keys(":")
        try tmux.literal(screen)
        try tmux.keys("Enter")
        try tmux.waitFor(text)
    }

    /// Sends each step (keys, or a line then enter) and waits for what the console says next.
    static func drive(_ tmux: Tmux, _ steps: [(line: String?, keys: String?, then: String)]) throws {
        for step in steps {
            if let keys = step.keys { try tmux.keys(keys) }
            if let line = step.line {
                if !line.isEmpty { try tmux.literal(line) }
                try tmux.keys("Enter")
            }
            try tmux.waitFor(step.then)
        }
    }

    @Test(arguments: [(80, 24), (120, 40), (200, 60)]) func raiseAndAnswerARequestThenSetAToken(_ size: (Int, Int)) throws {
        let (width, height) = size
        let home = TemporaryHome()
        let tmux = try Tmux.console(home: home, width: width, height: height, arguments: ["--role", "support", "--as", "li.na"])
        try Self.show(tmux, "consumption", waitingFor: "no consumption requests")

        // Each step: keys or a typed line (then enter), and what the console says next.
        let steps: [(line: String?, keys: String?, then: String)] = [
            (nil, "r", "consumption request for the consumable purchase"),
            (Self.consumable, nil, "the player's reason for \(Self.consumable)"),
            ("BORED", nil, "the reason must be 1-5"),
            (nil, "C-u", "the player's reason"),
            ("1", nil, "CONSUMPTION_REQUEST for \(Self.consumable) (UNINTENDED_PURCHASE)"),
        ]
        try Self.drive(tmux, steps)
        let raised = try tmux.capture()
        // The deadline counts down on the console's clock.
        #expect(raised.contains("open 12h 0m") || raised.contains("open 11h 59m"), "\(raised)")
        #expect(raised.contains("Consumption requests · all 1 of 1"), "\(raised)")

        try Self.drive(tmux, [
            (nil, "a", "did the player consent"), (nil, "y", "consumption status"),
            ("7", nil, "consumption status must be 0-3, got '7'"), (nil, "C-u", "consumption status"),
            ("3", nil, "platform: 0 undeclared"), ("", nil, "sample or trial"), (nil, "n", "delivery status"),
            ("", nil, "app account token (a UUID"), ("", nil, "account tenure, play time"), ("2 3 0 1", nil, "user status"),
            ("", nil, "refund preference"), ("", nil, "send consumption information for \(Self.consumable)"),
            (nil, "y", "consumption information for \(Self.consumable) sent by li.na"),
        ])
        let answered = try tmux.capture()
        #expect(answered.contains("answered"), "\(answered)")
        if height >= 40 {
            // The detail pane shows the answer field by field.
            #expect(answered.contains("3 fully consumed") && answered.contains("band 3"), "\(answered)")
        }

        try Self.show(tmux, "subscriptions", waitingFor: "STATE")
        try Self.drive(tmux, [
            (nil, "/", "/"), (Self.subscription, nil, "1 of 1"), (nil, "T", "app account token of \(Self.subscription) of player"),
            ("not-a-uuid", nil, "must be a UUID"), (nil, "C-u", "app account token of"), (Self.token, nil, "y/n"), (nil, "y", "(and its chain) set to"),
        ])
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))

        let audit = try Binary.run(["audit", "--action", "apple", "--json"], home: home)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]])
        #expect(
            entries.compactMap { $0["action"] as? String } == ["apple.app_account_token.set", "apple.consumption.answer", "apple.consumption.request"],
            "\(entries)")
        #expect(entries.allSatisfy { $0["actor"] as? String == "li.na" && $0["role"] as? String == "support" })
        let listed = try Binary.run(["support", "consumption", "list", "--json"], home: home)
        let requests = try #require((try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["requests"] as? [[String: Any]])
        #expect(requests.count == 1 && requests[0]["standing"] as? String == "answered" && requests[0]["answeredBy"] as? String == "li.na")
        #expect(try Binary.run(["check"], home: home).status == 0)
    }

    @Test func anOperatorIsToldWhyNot() throws {
        let home = TemporaryHome()
        let tmux = try Tmux.console(home: home, width: 120, height: 40, arguments: ["--role", "operator"])
        try Self.show(tmux, "consumption", waitingFor: "Consumption requests")
        try tmux.keys("r")
        let refused = try tmux.waitFor("need the support or developer role")
        #expect(!refused.contains("consumption request for the consumable purchase"), "\(refused)")
        try tmux.keys("?")
        let help = try tmux.waitFor("Raise Apple's CONSUMPTION_REQUEST")
        #expect(help.contains("Answer the selected request"), "\(help)")
        try tmux.keys("Escape")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
        #expect(try Binary.run(["audit", "--action", "apple"], home: home).stdout.isEmpty)
    }
}
