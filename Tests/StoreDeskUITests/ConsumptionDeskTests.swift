import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// The consumption-request desk (`:consumption`) and the app-account-token key on Subscriptions, driven
/// through the real reducer over a copy of the demo store: a request raised for a consumable, answered
/// field by field (a bad field refused at its prompt, nothing written), each audited as the console's
/// staff member; the deadline counting down on the console's clock, missed in the error colour; what an
/// operator and a read-only store are told.
@Suite struct ConsumptionDeskTests {
    /// Demo consumables (gems and coins), all purchased.
    static let gems = "2000000100000001"
    static let gems60 = "2000000100000004"
    static let gems300 = "2000000100000006"
    static let coins = "2000000100000008"
    /// A demo subscription's original transaction.
    static let subscription = "2000000100000030"
    static let size = Size(width: 120, height: 40)

    static func raise(_ console: ConsoleHarness, _ transaction: String, reason: String) {
        console.press(.character("r"))
        console.type(transaction)
        console.press(.enter)
        console.type(reason)
        console.press(.enter)
    }

    /// Answers the selected request: consent, then each field as given (nil takes the suggestion; `y` and
    /// `n` answer a yes/no question on the key), the last one the final `y` or `n`.
    static func answer(_ console: ConsoleHarness, _ fields: [String?]) {
        console.press(.character("a"), .character("y"))
        fill(console, fields)
    }

    static func fill(_ console: ConsoleHarness, _ fields: [String?]) {
        for field in fields {
            if field == "y" || field == "n" {
                console.type(field ?? "")
                continue
            }
            if let field { console.type(field) }
            console.press(.enter)
        }
    }

    static let fullAnswer: [String?] = ["3", nil, "n", nil, nil, "2 3 0 1", nil, nil, "y"]

    func requests(_ console: ConsoleHarness) throws -> [ConsumptionRequestRecord] {
        try console.database.consumptionRequests(appId: nil, limit: 10)
    }

    @Test func supportRaisesARequestAndAnswersItFieldByField() throws {
        let console = try ConsoleHarness(size: Self.size, role: .support)
        console.show("consumption")
        #expect(console.text.contains("no consumption requests: r raises one for a consumable"))

        Self.raise(console, Self.gems, reason: "1")
        #expect(console.state.status?.text.hasPrefix("CONSUMPTION_REQUEST for \(Self.gems) (UNINTENDED_PURCHASE) written to the log") == true)
        #expect(console.text.contains("open 12h 0m"), "\(console.text)")
        #expect(console.text.contains("starvoyage.gems.300"))

        // A field out of Apple's range is refused at its prompt; the prompt stays, nothing is written.
        console.press(.character("a"), .character("y"))
        console.type("9")
        console.press(.enter)
        guard case .prompt(let prompt) = console.state.mode else { Issue.record("no prompt: \(console.state.mode)"); return }
        #expect(prompt.refusal == "consumption status must be 0-3, got '9'")
        console.press(.ctrl("u"))
        Self.fill(console, Self.fullAnswer)
        #expect(console.state.status?.text == "consumption information for \(Self.gems) sent by tester", "\(String(describing: console.state.status))")
        let answered = try #require(try requests(console).first)
        #expect(answered.answeredBy == "tester" && answered.standing(at: console.state.clock) == .answered(late: false))
        let info = try JSONDecoder().decode(ConsumptionInformation.self, from: Data((answered.answer ?? "").utf8))
        #expect(info.consumptionStatus == 3 && info.platform == 1 && !info.sampleContentProvided && info.playTime == 3 && info.userStatus == 1)
        #expect(info.refundPreference == nil && info.lifetimeDollarsPurchased == 1)
        #expect(console.text.contains("answered") && console.text.contains("2 partially consumed") == false && console.text.contains("3 fully consumed"))

        let audit = try console.outside().read {
            try AuditEntry.fetchAll($0, sql: "SELECT * FROM audit_log WHERE action LIKE 'apple.consumption.%' ORDER BY id")
        }
        #expect(audit.map(\.action) == ["apple.consumption.request", "apple.consumption.answer"])
        #expect(audit.allSatisfy { $0.actor == "tester" && $0.role == "support" })

        // Answered: `a` says why not, in help too.
        console.press(.character("a"))
        #expect(console.state.status?.text == "answer: the consumption request of \(Self.gems) is answered already: not open")
    }

    @Test func badInputIsOneLineAndWritesNothing() throws {
        let console = try ConsoleHarness(size: Self.size, role: .support)
        console.show("consumption")
        // Not a consumable.
        Self.raise(console, Self.subscription, reason: "OTHER")
        #expect(console.state.status?.kind == .error)
        #expect(console.state.status?.text.contains("not a consumable") == true, "\(String(describing: console.state.status))")
        // No such transaction.
        Self.raise(console, "no-such", reason: "legal")
        #expect(console.state.status?.text == "no consumption request: no transaction or subscription 'no-such' in the store")
        // A reason Apple does not have keeps the prompt open with why.
        console.press(.character("r"))
        console.type(Self.gems)
        console.press(.enter)
        console.type("BORED")
        console.press(.enter)
        guard case .prompt(let prompt) = console.state.mode else { Issue.record("no prompt"); return }
        #expect(prompt.refusal?.hasPrefix("the reason must be 1-5 or one of UNINTENDED_PURCHASE") == true)
        console.press(.escape)
        #expect(try requests(console).isEmpty)

        // No consent: nothing sent.
        Self.raise(console, Self.gems, reason: "other")
        console.press(.character("a"), .character("n"))
        #expect(console.state.status?.text.contains("only with the player's consent; nothing was sent") == true)
        // `n` at the end: nothing sent.
        Self.answer(console, Array(Self.fullAnswer.dropLast()) + ["n"])
        #expect(console.state.status?.text == "answer: cancelled, nothing was sent")
        // A bad token is refused at its prompt.
        console.press(.character("a"), .character("y"))
        Self.fill(console, ["3", "1", "n", "0"])
        console.type("not-a-uuid")
        console.press(.enter)
        guard case .prompt(let tokenPrompt) = console.state.mode else { Issue.record("no prompt"); return }
        #expect(tokenPrompt.refusal == "the app account token must be a UUID or empty, got 'not-a-uuid'")
        console.press(.escape)
        #expect(try requests(console).first?.answeredAt == nil)
    }

    @Test func theDeadlineCountsDownAndAMissedRequestIsShownInTheErrorColour() throws {
        let console = try ConsoleHarness(size: Self.size, role: .developer)
        console.show("consumption")
        Self.raise(console, Self.gems, reason: "2")
        let start = console.state.clock
        console.runtime.dispatch(.tick(start.adding(.minutes(90))))
        #expect(console.text.contains("open 10h 30m"), "\(console.text)")
        console.runtime.dispatch(.tick(start.adding(.hours(13))))
        #expect(console.text.contains("missed"))
        // The selected row is drawn selected: move off it to see its own colour.
        Self.raise(console, Self.coins, reason: "5")
        let after = console.frame
        let lines = after.plainText.split(separator: "\n", omittingEmptySubsequences: false)
        let missedRow = try #require(lines.indices.first { lines[$0].contains(Self.gems) && lines[$0].contains("missed") })
        #expect(after.roles(row: missedRow).contains(.statusError))
        // `s` shows the missed ones only; a missed request still takes an answer, marked late.
        console.press(.character("s"), .character("s"))
        #expect(console.text.contains("Consumption requests · missed 1 of 1"), "\(console.text)")
        Self.answer(console, Self.fullAnswer)
        #expect(console.state.status?.text == "consumption information for \(Self.gems) sent after the deadline (answered late) by tester")
        #expect(console.text.contains("answered late"))
    }

    @Test func anOperatorLooksAndIsToldWhyNot() throws {
        let support = try ConsoleHarness(size: Self.size, role: .support)
        support.show("consumption")
        Self.raise(support, Self.gems, reason: "1")

        let console = try ConsoleHarness(size: Self.size, role: .operator)
        _ = try console.database.requestConsumption(
            transactionId: Self.gems, reason: "LEGAL", by: StaffMember(name: "li.na", role: .support), at: console.state.clock)
        console.show("consumption")
        #expect(console.text.contains("LEGAL"))
        console.press(.character("a"))
        #expect(console.state.status?.text == "answer: refunds, extensions and consumption answers need the support or developer role")
        console.press(.character("r"))
        #expect(console.state.status?.text == "request: refunds, extensions and consumption answers need the support or developer role")
        #expect(console.text.contains("an operator may look"))
        #expect(try requests(console).first?.answeredAt == nil)
    }

    @Test func aReadOnlyStoreRegistersNoDeskWrites() throws {
        let console = try ConsoleHarness(size: Self.size, role: .support, readOnly: true)
        console.show("consumption")
        #expect(Keymap.binding(for: .character("r"), in: console.state) == nil)
        #expect(Keymap.binding(for: .character("a"), in: console.state) == nil)
        console.press(.character("?"))
        #expect(console.text.contains("unavailable: the store is open read-only"))
    }

    @Test func theTokenKeySetsAUUIDAndRefusesAnythingElse() throws {
        let console = try ConsoleHarness(size: Self.size, role: .support)
        console.show("subscriptions")
        console.show("select \(Self.subscription)")
        console.press(.character("T"))
        console.type("not-a-uuid")
        console.press(.enter)
        guard case .prompt(let prompt) = console.state.mode else { Issue.record("no prompt"); return }
        #expect(prompt.refusal == "the app account token must be a UUID (8-4-4-4-12 hex digits), got 'not-a-uuid'")
        console.press(.escape)
        func tokens() throws -> [String] {
            try console.outside().read { try String.fetchAll($0, sql: "SELECT app_account_token FROM apple_app_account_token") }
        }
        #expect(try tokens().isEmpty)

        console.press(.character("T"))
        console.type("7e3fb20b-4cdb-47cc-936d-99d65f608138")
        console.press(.enter)
        // Every support write asks y/n, naming the subscription and its player.
        guard case .prompt(let ask) = console.state.mode else { Issue.record("no y/n"); return }
        #expect(ask.label.hasPrefix("set the app account token of \(Self.subscription) of player "), "\(ask.label)")
        #expect(try tokens().isEmpty)
        console.press(.character("y"))
        #expect(console.state.status?.text == "app account token of \(Self.subscription) (and its chain) set to 7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(try tokens() == ["7e3fb20b-4cdb-47cc-936d-99d65f608138"])
        let audit = try console.outside().read {
            try AuditEntry.fetchOne($0, sql: "SELECT * FROM audit_log WHERE action LIKE 'apple.%token%' ORDER BY id DESC")
        }
        #expect(audit?.actor == "tester" && audit?.role == "support")

        let operatorConsole = try ConsoleHarness(size: Self.size, role: .operator)
        operatorConsole.show("subscriptions")
        operatorConsole.press(.character("T"))
        #expect(operatorConsole.state.status?.text == "token: refunds, extensions and consumption answers need the support or developer role")
    }

    /// Four requests, one a standing: answered, answered late, missed, open.
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40), Size(width: 200, height: 60)])
    func theDeskAtEverySize(_ size: Size) throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("consumption")
        Self.raise(console, Self.gems, reason: "1")
        Self.raise(console, Self.gems60, reason: "2")
        Self.answer(console, Self.fullAnswer)
        Self.raise(console, Self.gems300, reason: "3")
        console.runtime.dispatch(.tick(console.state.clock.adding(.hours(13))))
        Self.answer(console, Self.fullAnswer)
        Self.raise(console, Self.coins, reason: "LEGAL")
        console.runtime.dispatch(.tick(console.state.clock.adding(.minutes(61))))
        // The request answered late, its answer in the detail pane.
        console.press(.character("G"))
        try Golden.check(console.frame, named: "consumption-desk-\(size.width)x\(size.height)")
    }
}
