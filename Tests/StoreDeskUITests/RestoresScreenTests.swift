import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// The Restores and Audit screens over the demo store, driven by keys as a person would.
@Suite struct RestoresScreenTests {
    let size = Size(width: 120, height: 40)

    func open(_ console: ConsoleHarness, _ screen: String) {
        console.press(.character(":"))
        console.type(screen)
        console.press(.enter)
    }

    func restores(_ console: ConsoleHarness) -> RestoresScreen { console.state.screenState(RestoresScreen.self) }

    func count(_ console: ConsoleHarness, _ sql: String) throws -> Int {
        try console.outside().read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    @Test func openPromptsComeOldestFirstWithCandidatesOwnerAndRule() throws {
        let console = try ConsoleHarness(size: size)
        open(console, "restores")
        let screen = restores(console)
        #expect(console.state.screen == .restores)
        #expect(screen.list.rows.map(\.request.transactionId) == ["2000000100000093", "2000000100000095", "2000000100000096"])
        #expect(screen.counts[.open] == 3)
        #expect(screen.detail?.transaction.id == "2000000100000093")
        let text = console.text
        #expect(text.contains("Restores · open 1 of 3"))
        #expect(text.contains("2d 11h    2000000100000093 10000024 coins.3000 ×1"))
        #expect(text.contains("Candidate accounts (3)"))
        #expect(text.contains("10000023 s1/r10000023-1 婷妈的花园 · keep: refused"))
        #expect(text.contains("rule       keep: Pocket Garden keeps the purchase"))
        console.press(.character("j"), .character("j"))
        #expect(restores(console).detail?.transaction.id == "2000000100000096")
        #expect(console.text.contains("share: 龙脉 Dragon Atlas lets both hold it"))
    }

    @Test func bHidesTheSandboxPromptsAndTheTitleCountsThem() throws {
        let console = try ConsoleHarness(size: size)
        // A simulation's dropped order: its purchase was made with Apple's test money.
        try console.outside().write { db in
            try db.execute(sql: "UPDATE store_transaction SET environment = 'Sandbox' WHERE id = '2000000100000095'")
        }
        open(console, "restores")
        #expect(restores(console).list.rows.map(\.request.transactionId) == ["2000000100000093", "2000000100000095", "2000000100000096"])
        #expect(restores(console).list.rows.map(\.environment) == [.production, .sandbox, .production])
        #expect(console.text.contains("Restores · open 1 of 3 · 1 sandbox"))
        console.press(.character("b"))
        #expect(restores(console).hidesSandbox)
        #expect(restores(console).list.rows.map(\.request.transactionId) == ["2000000100000093", "2000000100000096"])
        #expect(console.text.contains("Restores · open 1 of 2 · 1 sandbox hidden"))
        #expect(console.state.status?.text == "Sandbox restore prompts hidden (b shows them)")
        // Every status keeps it hidden: all five prompts less the Sandbox one.
        console.press(.character("s"), .character("s"), .character("s"))
        #expect(restores(console).status == nil && restores(console).list.rows.count == 4)
        #expect(console.text.contains("Restores · all 1 of 4 · 1 sandbox hidden"))
        console.press(.character(":"))
        console.type("sandbox show")
        console.press(.enter)
        #expect(!restores(console).hidesSandbox && restores(console).list.rows.count == 5)
        console.press(.character(":"))
        console.type("sandbox maybe")
        console.press(.enter)
        #expect(console.state.status?.text == ":sandbox takes hide or show, got 'maybe'")
    }

    @Test func statusCyclesAndTheFilterFindsAPlayer() throws {
        let console = try ConsoleHarness(size: size)
        open(console, "restores")
        console.press(.character("s"))
        #expect(restores(console).status == .confirmed)
        #expect(restores(console).list.rows.map(\.request.transactionId) == ["2000000100000088"])
        #expect(console.text.contains("order      2611120001 · appstore · granted"))
        console.press(.character("s"), .character("s"))
        #expect(restores(console).status == nil && restores(console).list.rows.count == 5)
        console.press(.character("/"))
        console.type("10000035")
        console.press(.enter)
        #expect(restores(console).list.rows.map(\.request.userId) == ["10000035"])
        console.press(.character(":"))
        console.type("status nonsense")
        console.press(.enter)
        #expect(console.state.status?.text == ":status takes open, confirmed, declined or all, got 'nonsense'")
    }

    @Test func supportConfirmsByChoosingTheAccountSidAndRoleAndSeesTheOutcome() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        open(console, "restores")
        console.press(.character("j"), .character("j"))  // 2000000100000096, 龙脉 (share)
        console.press(.character("c"))
        #expect(restores(console).picking == 0)
        #expect(console.text.contains("▸ 10000035 s5/r10000035-1 影舞者"))
        console.press(.character("j"), .enter)
        guard case .prompt(let sidPrompt) = console.state.mode, sidPrompt.label.hasPrefix("Sid for") else {
            Issue.record("expected the Sid prompt, got \(console.state.mode)")
            return
        }
        #expect(sidPrompt.label == "Sid for 10000035 s2/r10000035-2" && sidPrompt.text == "s2")
        console.press(.enter)
        guard case .prompt(let rolePrompt) = console.state.mode, rolePrompt.label.hasPrefix("Role_Id on") else {
            Issue.record("expected the Role_Id prompt")
            return
        }
        #expect(rolePrompt.text == "r10000035-2")
        console.press(.enter)
        guard case .prompt(let goPrompt) = console.state.mode, goPrompt.label.hasPrefix("restore ") else {
            Issue.record("expected the confirmation")
            return
        }
        #expect(goPrompt.label == "restore 2000000100000096 onto 10000035 s2/r10000035-2 (share: 10000035 s5/r10000035-1 keeps it too)? y/n")
        #expect(goPrompt.kind == .yesNo)
        // y answers on the key, without enter.
        console.type("y")
        #expect(console.state.status?.text.hasPrefix("restored 2000000100000096 onto 10000035 s2/r10000035-2") == true)
        // The prompt stays in view with its outcome, though the list shows open prompts only.
        let screen = restores(console)
        #expect(screen.selectedRow?.request.transactionId == "2000000100000096")
        #expect(screen.detail?.request.status == .confirmed)
        let text = console.text
        #expect(text.contains("callback   attempt 1 accepted · reply success"))
        #expect(text.contains("owner      10000035 s5/r10000035-1 影舞者 +"))
        // The verdict wraps by words, so the grant is a few lines further down the detail pane.
        console.press(.tab)
        for _ in 0..<8 { console.press(.character("j")) }
        #expect(console.text.contains("grant      com.storedesk.dragonatlas.jade.1280 ×1"))
        console.press(.tab)
        #expect(screen.detail?.currentOwners.map(\.label) == ["10000035 s5/r10000035-1", "10000035 s2/r10000035-2"])
        #expect(text.contains("✓ 18h 18m 2000000100000096 10000035"))
        // The restore desk's order number: the first of the store's first block.
        #expect(try count(console, "SELECT COUNT(*) FROM item_grant WHERE order_id = '10000000001' AND source = 'restore'") == 1)
        #expect(try count(console, "SELECT COUNT(*) FROM payment_order WHERE order_id = '10000000001' AND transaction_id = '2000000100000096'") == 1)
        #expect(try count(console, "SELECT COUNT(*) FROM audit_log WHERE action = 'restore.confirm' AND actor = 'tester' AND role = 'support'") == 1)
        // Moving on lets it go.
        console.press(.character("k"))
        console.runtime.dispatch(.storeChanged)
        #expect(restores(console).list.rows.map(\.request.transactionId) == ["2000000100000093", "2000000100000095"])
        #expect(try console.database.check() == [])
    }

    @Test func aRefusedConfirmSaysWhyAndWritesNothing() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        open(console, "restores")
        let grants = try count(console, "SELECT COUNT(*) FROM item_grant")
        // An account marked "keep: refused" is refused at the pick, before its Sid and Role_Id.
        console.press(.character("c"), .character("j"), .enter)  // 10000023 on a keep app
        let keep = "Pocket Garden keeps purchases with the account that paid (10000024 s1/r10000024-1): restoring onto 10000023 s1/r10000023-1 is refused (ownership: keep)"
        #expect(console.state.status?.text == keep)
        #expect(restores(console).picking == 1 && console.state.mode == .normal)
        // The whole reason is readable: it takes the footer's line too, and the message log keeps it.
        #expect(console.text.contains("Pocket Garden keeps purchases with the account that paid"))
        #expect(console.text.contains("s1/r10000023-1 is refused (ownership: keep)"))
        #expect(console.state.messages.last?.message.text == keep)
        // Moving on drops the refusal; the paying account goes on to its Sid.
        console.press(.character("k"))
        #expect(console.state.status?.text == "confirm 2000000100000093: choose the account (j/k, enter), esc cancels")
        #expect(restores(console).picking == 0)
        console.press(.enter)
        guard case .prompt(let payer) = console.state.mode else {
            Issue.record("the paying account did not go on to its Sid")
            return
        }
        #expect(payer.label == "Sid for 10000024 s1/r10000024-1")
        console.press(.escape)
        // A bad Sid typed at the prompt is refused by the restoreProduct rules, and the prompt stays open.
        console.press(.character("c"), .enter, .ctrl("u"))
        console.type("s 1/!")
        console.press(.enter)
        guard case .prompt(let sid) = console.state.mode else {
            Issue.record("the Sid prompt closed on a refused Sid")
            return
        }
        #expect(sid.label.hasPrefix("Sid for") && sid.text == "s 1/!")
        #expect(sid.refusal == "restoreProduct refused: Sid may contain only letters, digits, '-' and '_'")
        #expect(console.text.contains("✗ restoreProduct refused: Sid may contain only letters"))
        console.press(.escape)
        #expect(console.state.mode == .normal)
        // Anything but y cancels; esc in the picker too.
        console.press(.character("c"), .enter, .enter, .enter)
        console.type("n")
        #expect(console.state.status?.text == "confirm: cancelled, nothing was written")
        console.press(.character("c"), .escape)
        #expect(restores(console).picking == nil && console.state.status?.text == "confirm: cancelled")
        #expect(try count(console, "SELECT COUNT(*) FROM item_grant") == grants)
        #expect(try count(console, "SELECT COUNT(*) FROM restore_request WHERE status = 'open'") == 3)
    }

    @Test func declineAsksForAReasonAndIsAudited() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        open(console, "restores")
        console.press(.character("j"), .character("d"))
        console.press(.enter)
        // Enter on an empty reason: the prompt stays open with the reason beside it, and what is typed
        // next goes to the prompt, never to the screen behind.
        guard case .prompt(let empty) = console.state.mode else {
            Issue.record("the reason prompt closed on an empty reason")
            return
        }
        #expect(empty.refusal == "a decline needs a reason the player can be told")
        console.type("refunded by Apple; player told")
        console.press(.enter)
        // The exact reason that will be saved, shown before it is.
        guard case .prompt(let confirm) = console.state.mode else {
            Issue.record("expected the decline's confirmation")
            return
        }
        #expect(confirm.kind == .yesNo && confirm.label == "decline 2000000100000095 with the reason “refunded by Apple; player told”? y/n")
        #expect(try count(console, "SELECT COUNT(*) FROM restore_request WHERE status = 'declined' AND transaction_id = '2000000100000095'") == 0)
        console.type("y")
        #expect(console.state.status?.text == "declined 2000000100000095: refunded by Apple; player told")
        #expect(console.text.contains("reason     refunded by Apple; player told"))
        #expect(try count(console, "SELECT COUNT(*) FROM audit_log WHERE action = 'restore.decline' AND subject = 'transaction 2000000100000095'") == 1)
        // A resolved prompt cannot be confirmed or declined again.
        console.press(.character("c"))
        #expect(console.state.status?.text.hasPrefix("transaction 2000000100000095 was already declined by tester (support) at ") == true)
    }

    @Test func anOperatorSeesThePromptsWithTheActionsDimmedAndWhy() throws {
        let console = try ConsoleHarness(size: size, role: .operator)
        open(console, "restores")
        console.press(.character("c"))
        #expect(console.state.status?.text == "confirm: restores need the support or developer role")
        console.press(.character("d"))
        #expect(console.state.status?.text == "decline: restores need the support or developer role")
        #expect(restores(console).picking == nil)
        console.press(.character("?"))
        #expect(console.text.contains("unavailable: restores need the support or developer role"))
        #expect(try count(console, "SELECT COUNT(*) FROM restore_request WHERE status = 'open'") == 3)
    }

    @Test func aLoginFromTheConsoleBringsADroppedOrderOnTheList() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        open(console, "restores")
        console.press(.character(":"))
        console.type("login 10000010")
        console.press(.enter)
        #expect(console.state.status?.text == "10000010 logged in: 1 restore prompt opened; open per player: 10000010 (1)")
        #expect(restores(console).list.rows.map(\.request.transactionId).last == "2000000100000098")
        console.press(.character(":"))
        console.type("login nobody")
        console.press(.enter)
        #expect(console.state.status?.text == "no user with id 'nobody'")
        let operatorConsole = try ConsoleHarness(size: size, role: .operator)
        open(operatorConsole, "restores")
        operatorConsole.press(.character(":"))
        operatorConsole.type("login 10000010")
        operatorConsole.press(.enter)
        #expect(operatorConsole.state.status?.text == "login: restores need the support or developer role")
    }

    @Test func readOnlyRegistersNoWriteAction() throws {
        let console = try ConsoleHarness(size: size, role: .support, readOnly: true)
        open(console, "restores")
        console.press(.character("c"))
        #expect(restores(console).picking == nil)
        #expect(!console.text.contains("c confirm"))
        console.press(.character("?"))
        #expect(console.text.contains("unavailable: the store is open read-only"))
    }

    @Test func theAuditScreenListsNewestFirstAndFilters() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        open(console, "restores")
        console.press(.character("d"))
        console.type("duplicate of an earlier order")
        console.press(.enter, .character("y"))
        open(console, "audit")
        var audit = console.state.screenState(AuditScreen.self)
        #expect(audit.list.rows.first?.action == "restore.decline" && audit.list.rows.first?.actor == "tester")
        #expect(audit.list.rows.map(\.at) == audit.list.rows.map(\.at).sorted(by: >))
        #expect(console.text.contains("detail   duplicate of an earlier order"))
        console.press(.character("/"))
        console.type("action:restore actor:li.support")
        console.press(.enter)
        audit = console.state.screenState(AuditScreen.self)
        #expect(audit.list.rows.map(\.action) == ["restore.decline", "restore.confirm"])
        console.press(.character("/"), .ctrl("u"))
        console.type("锦马超")
        console.press(.enter)
        #expect(console.state.screenState(AuditScreen.self).list.rows.map(\.action) == ["subscription.refund.note"])
    }

    @Test func theAuditListPagesWithoutOffset() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 15))
        try console.outside().write { db in
            for i in 0..<30 {
                var entry = AuditEntry(
                    at: Instant(millis: 1_800_000_000_000 + Int64(i) * 60_000), actor: "bulk", role: "support",
                    action: "reveal.phone", subject: "user \(i)", detail: "drill \(i)")
                try entry.insert(db)
            }
        }
        open(console, "audit")
        let rows = console.state.context.pageSize
        var audit = console.state.screenState(AuditScreen.self)
        #expect(audit.list.rows.count == rows && audit.list.rows.first?.subject == "user 29")
        for _ in 0..<rows { console.press(.character("j")) }
        audit = console.state.screenState(AuditScreen.self)
        #expect(audit.list.selectedRow?.subject == "user \(29 - rows)" && audit.list.rows.count == rows)
        console.press(.character("G"))
        audit = console.state.screenState(AuditScreen.self)
        #expect(audit.list.selectedRow?.action == "login.entries.set" && audit.list.selectedRow?.actor == "zhao.dev")
        console.press(.pageUp, .character("g"))
        #expect(console.state.screenState(AuditScreen.self).list.selectedRow?.subject == "user 29")
    }
}

/// A confirm or a decline under way is bound to its prompt: when another desk resolves
/// that prompt meanwhile, the flow stops and says who did what; it never goes on with the next prompt.
@Suite struct RestoreFlowBindingTests {
    let size = Size(width: 120, height: 40)

    func restores(_ console: ConsoleHarness) -> RestoresScreen { console.state.screenState(RestoresScreen.self) }

    /// Another desk, on its own connection to the same file.
    func otherDesk(_ console: ConsoleHarness) throws -> AppDatabase {
        try AppDatabase.open(path: console.database.path, access: .readWriteConcurrent)
    }

    @Test func aConfirmUnderWayStopsWhenAnotherDeskRestoresItsPrompt() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        #expect(restores(console).selectedRow?.request.transactionId == "2000000100000093")
        console.press(.character("c"))
        #expect(restores(console).picking == 0)
        let candidate = try #require(restores(console).detail?.candidates.first { $0.userId == "10000024" })
        // desk.b restores it first, onto the paying account.
        let other = try otherDesk(console)
        _ = try other.confirmRestore(
            transactionId: "2000000100000093", onto: candidate, by: StaffMember(name: "desk.b", role: .support), at: console.state.clock)
        console.runtime.dispatch(.storeChanged)
        let screen = restores(console)
        // The chooser is gone, the prompt stays selected (its new state in view), and the line says who did it.
        #expect(screen.picking == nil)
        #expect(screen.selectedRow?.request.transactionId == "2000000100000093")
        #expect(screen.detail?.request.status == .confirmed)
        let said = console.state.status?.text ?? ""
        #expect(said.hasPrefix("stopped the confirm or decline of 2000000100000093"), "\(said)")
        #expect(said.contains("already restored by desk.b (support)") && said.hasSuffix("nothing was written"), "\(said)")
        #expect(!console.text.contains("loses it"))
        // Enter now asks nothing about another prompt.
        console.press(.enter)
        if case .prompt(let prompt) = console.state.mode { Issue.record("a prompt opened: \(prompt.label)") }
        #expect(try console.database.check() == [])
    }

    @Test func aDeclineUnderWayNeverLandsOnAnotherPrompt() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.press(.character("d"))
        console.type("not eligible")
        console.press(.enter)
        guard case .prompt(let ask) = console.state.mode else { Issue.record("no y/n"); return }
        #expect(ask.label.hasPrefix("decline 2000000100000093 with the reason"))
        // desk.b declines it meanwhile; the list moves on to the next open prompt.
        _ = try otherDesk(console).declineRestore(
            transactionId: "2000000100000093", reason: "duplicate ticket", by: StaffMember(name: "desk.b", role: .support),
            at: console.state.clock)
        console.runtime.dispatch(.storeChanged)
        let said = console.state.status?.text ?? ""
        #expect(said.contains("already declined by desk.b (support)"), "\(said)")
        // The y/n is gone (it asked about …093), and y writes nothing on …095.
        if case .prompt(let prompt) = console.state.mode { Issue.record("a prompt is still open: \(prompt.label)") }
        console.type("y")
        let open = try console.outside().read {
            try String.fetchAll($0, sql: "SELECT transaction_id FROM restore_request WHERE status = 'open' ORDER BY transaction_id")
        }
        #expect(open == ["2000000100000095", "2000000100000096"])
        #expect(try console.outside().read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM audit_log WHERE action = 'restore.decline' AND actor = 'tester'") } == 0)
    }
}

/// `g` then `d` typed together on a store slower than a frame: the `d` comes before `g`'s page, and the
/// decline starts on the prompt the page selects, once that prompt is loaded, never on the row selected
/// before (a prompt just confirmed there said "already restored"; an open one would have been declined).
@Suite struct RestoresKeysBeforeThePageTests {
    /// Performs `effects` on the console's store and reduces their messages into `state`, as the loop would
    /// once the answers come.
    func answer(_ effects: [Effect], _ state: inout AppState, _ runtime: ConsoleRuntime) {
        var queue = effects
        while !queue.isEmpty {
            if let message = runtime.perform(queue.removeFirst()) { queue += state.reduce(message) }
        }
    }

    @Test func aDeclineTypedBeforeThePageComesStartsOnTheRowThePageSelects() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .support)
        console.press(.character("3"))
        console.press(.character("j"))
        var state = console.state
        let before = try #require(state.screenState(RestoresScreen.self).selectedRow?.request.transactionId)
        // `g` asks for the first page; `d` is read before the answer.
        var effects = state.reduce(.key(.character("g")))
        effects += state.reduce(.key(.character("d")))
        #expect(state.render().plainText.contains("decline waits for the selected prompt to load"))
        #expect(!state.render().plainText.contains("reason to decline"))
        answer(effects, &state, console.runtime)
        let first = try #require(state.screenState(RestoresScreen.self).selectedRow?.request.transactionId)
        #expect(first != before)
        #expect(state.render().plainText.contains("reason to decline \(first): "), "\(state.render().plainText)")
    }

    @Test func aMoveBeforeThePageDropsTheWaitingDecline() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .support)
        console.press(.character("3"))
        var state = console.state
        var effects = state.reduce(.key(.character("g")))
        effects += state.reduce(.key(.character("d")))
        effects += state.reduce(.key(.character("j")))
        answer(effects, &state, console.runtime)
        #expect(!state.render().plainText.contains("reason to decline"), "\(state.render().plainText)")
    }
}
