import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// The Queue screen over the demo store, and a simulation driven from the console with a controlled clock.
@Suite struct QueueScreenTests {
    let size = Size(width: 120, height: 40)

    func openQueue(_ console: ConsoleHarness) {
        console.press(.character(":"))
        console.type("queue")
        console.press(.enter)
    }

    /// Advances the console clock by `seconds` in ticks of `step` seconds, as the runtime would.
    func tick(_ console: ConsoleHarness, seconds: Double, step: Double = 0.1) {
        var now = console.state.clock
        for _ in 0..<Int(seconds / step) {
            // As the runtime's loop: the console's clock catches up with the store's, which the
            // simulation's commits move on, and each commit is a store change.
            now = max(now, console.state.clock).adding(Instant.Duration(millis: Int64(step * 1000)))
            console.runtime.dispatch(.tick(now))
            console.runtime.dispatch(.storeChanged)
        }
    }

    @Test func aRunsSpeedIsSimulatedSecondsPerRealSecondWhileTheClockCatchesUpWithItsCommits() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        openQueue(console)
        console.press(.character("r"), .character("+"), .character("+"), .character("+"))
        #expect(console.state.screenState(QueueScreen.self).speed == 10)
        let start = try #require(console.state.screenState(QueueScreen.self).simulation).now
        // 10 s of real time in ticks of 0.1 s, the console's clock catching up with the commits' stamps
        // (which run ahead of it at 10×) only when their change is seen, a few ticks later, as the store
        // calls and the watcher deliver it: the run moves 100 s, not the fifth of it it moved when the
        // ticks until then were not counted.
        var now = console.state.clock, wall = Instant(millis: 1_000_000)
        console.runtime.tick(now, wall: wall)
        for i in 1...100 {
            now = max(now, console.state.clock).adding(Instant.Duration(millis: 100))
            wall = wall.adding(Instant.Duration(millis: 100))
            console.runtime.tick(now, wall: wall)
            if i % 5 == 0 { console.runtime.dispatch(.storeChanged) }
        }
        let moved = try #require(console.state.screenState(QueueScreen.self).simulation).now.millis - start.millis
        #expect((99_000...101_000).contains(moved), "the run moved \(moved) ms in 10 s at 10×")
        #expect(console.text.contains("▶ 10×"))
    }

    func count(_ console: ConsoleHarness, _ sql: String) throws -> Int {
        try console.outside().read { try Int.fetchOne($0, sql: sql) ?? -1 }
    }

    @Test func theQueueListsEveryUnfinishedTransactionWithCountersPerState() throws {
        let console = try ConsoleHarness(size: size)
        openQueue(console)
        let queue = console.state.screenState(QueueScreen.self)
        #expect(console.state.screen == .queue)
        let unfinished = try count(console, "SELECT COUNT(*) FROM store_transaction WHERE finished = 0")
        #expect(queue.rows.count == min(unfinished, queue.listRows(console.state.context)))
        #expect(queue.counts.values.reduce(0, +) == unfinished)
        let purchased = try count(console, "SELECT COUNT(*) FROM store_transaction WHERE finished = 0 AND state = 'purchased'")
        #expect(console.text.contains("\(unfinished) in queue ") && console.text.contains("purchasing"))
        #expect(console.text.contains("purchased \(purchased)"))
        // Newest first, and the detail pane follows the selection.
        #expect(queue.rows.map(\.purchaseDate) == queue.rows.map(\.purchaseDate).sorted(by: >))
        #expect(queue.detail?.transaction.id == queue.rows.first?.id)
    }

    @Test func filtersByStateUserAndProduct() throws {
        let console = try ConsoleHarness(size: size)
        openQueue(console)
        console.press(.character("s"))
        var queue = console.state.screenState(QueueScreen.self)
        #expect(queue.filter == "state:purchasing")
        #expect(!queue.rows.isEmpty && queue.rows.allSatisfy { $0.state == .purchasing })
        console.press(.character("s"))
        queue = console.state.screenState(QueueScreen.self)
        #expect(queue.filter == "state:purchased")
        #expect(queue.rows.allSatisfy { $0.state == .purchased })

        console.press(.character("/"), .ctrl("u"))
        console.type("user:10000021")
        console.press(.enter)
        queue = console.state.screenState(QueueScreen.self)
        #expect(!queue.rows.isEmpty && queue.rows.allSatisfy { $0.userId == "10000021" })
        console.press(.character("/"), .ctrl("u"))
        console.type("product:gems")
        queue = console.state.screenState(QueueScreen.self)
        #expect(!queue.rows.isEmpty && queue.rows.allSatisfy { $0.productId.contains("gems") })
        console.type(" state:nonsense")
        #expect(console.state.status?.text.hasPrefix("no state 'nonsense'") == true)
        console.press(.escape)
    }

    @Test func anOperatorSeesTheQueueButCannotDriveTheSimulation() throws {
        let console = try ConsoleHarness(size: size, role: .operator)
        openQueue(console)
        console.press(.character("r"))
        #expect(console.state.status?.text == "run/stop: driving the simulation needs the developer role")
        #expect(console.state.screenState(QueueScreen.self).simulation == nil)
        console.press(.character("?"))
        #expect(console.text.contains("unavailable: driving the simulation needs the developer role"))
        let readOnly = try ConsoleHarness(size: size, role: .developer, readOnly: true)
        openQueue(readOnly)
        #expect(Keymap.binding(for: .character("r"), in: readOnly.state) == nil)
        #expect(Keymap.binding(for: .character("s"), in: readOnly.state)?.help == "state")
    }

    @Test func aDeveloperRunsTheSimulationLiveWithFaultsAndClockControl() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        openQueue(console)
        let eventsBefore = try count(console, "SELECT COUNT(*) FROM transaction_event")
        console.press(.character("r"))
        #expect(console.state.screenState(QueueScreen.self).simulation != nil)
        #expect(console.state.current.tickInterval == 0.1)
        #expect(console.text.contains("▶ 1×"))

        // Faster, then a fault typed at the prompt.
        console.press(.character("+"), .character("+"), .character("+"))
        #expect(console.state.screenState(QueueScreen.self).speed == 10)
        console.press(.character("x"))
        console.type("clientCrash:1")
        #expect(console.text.contains("fault (KIND[:ARG] or clear): clientCrash:1"))
        console.press(.enter)
        #expect(console.state.status?.text == "fault clientCrash:1.0 injected from now on")
        #expect(console.text.contains("faults clientCrash:1.0"))
        console.press(.character("x"))
        console.type("explode")
        console.press(.enter)
        // Refused at the prompt, which stays open with the reason beside what was typed.
        guard case .prompt(let refused) = console.state.mode else {
            Issue.record("the fault prompt closed on a refused answer")
            return
        }
        #expect(refused.text == "explode" && refused.refusal?.hasPrefix("fault 'explode': unknown fault kind") == true)
        #expect(console.state.messages.last?.message.text.hasPrefix("fault 'explode': unknown fault kind") == true)
        console.press(.escape)

        tick(console, seconds: 3)
        let simulation = try #require(console.state.screenState(QueueScreen.self).simulation)
        #expect(simulation.summary.attempts > 20, "3 s at 10× and 2/s")
        #expect(try count(console, "SELECT COUNT(*) FROM transaction_event") > eventsBefore + 20)
        #expect(try count(console, "SELECT COUNT(*) FROM transaction_event WHERE kind = 'client_crashed'") > 0)
        #expect(console.state.screenState(QueueScreen.self).tally[.purchasing] ?? 0 > 20)

        // Pause: ticks write nothing; a single step writes one step.
        console.press(.character(" "))
        let paused = try count(console, "SELECT COUNT(*) FROM transaction_event")
        tick(console, seconds: 1)
        #expect(try count(console, "SELECT COUNT(*) FROM transaction_event") == paused)
        #expect(console.text.contains("⏸ 10×"))
        console.press(.character("."))
        #expect(try count(console, "SELECT COUNT(*) FROM transaction_event") > paused)
        #expect(console.state.status?.text.hasPrefix("stepped to ") == true)

        // Stopping leaves the store clean for `check`.
        console.press(.character("r"))
        #expect(console.state.screenState(QueueScreen.self).simulation == nil)
        #expect(try console.outside().read { try StoreCheck.run($0) }.isEmpty)
    }

    /// The console's run is Sandbox, on the store's own game accounts, and its start, each fault set or
    /// cleared, and its stop are on the audit log under the person at the console.
    @Test func theConsolesRunIsSandboxAndItsStartFaultsAndStopAreAudited() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        openQueue(console)
        console.press(.character("r"))
        let run = try #require(console.state.screenState(QueueScreen.self).run)
        console.press(.character("x"))
        console.type("clientCrash:0.5")
        console.press(.enter)
        console.press(.character("x"))
        console.type("clear")
        console.press(.enter)
        tick(console, seconds: 3)
        console.press(.character("r"))
        let lines = try console.outside().read { db in
            try Row.fetchAll(db, sql: "SELECT actor, role, action, subject, detail FROM audit_log WHERE action LIKE 'simulate.%' ORDER BY id")
        }
        #expect(lines.map { $0["action"] as String } == ["simulate.start", "simulate.fault", "simulate.fault", "simulate.stop"])
        #expect(lines.allSatisfy { $0["actor"] == "tester" && $0["role"] == "developer" && $0["subject"] == "run \(run.id)" })
        #expect((lines[0]["detail"] as String).hasPrefix("console run started: Sandbox purchases, at "))
        #expect(lines[1]["detail"] == "fault clientCrash:0.5 injected" && lines[2]["detail"] == "faults cleared")
        let prefix = "live\(run.id)-%"
        #expect(try count(console, "SELECT COUNT(*) FROM store_transaction WHERE id LIKE '\(prefix)'") > 0)
        #expect(try count(console, "SELECT COUNT(*) FROM store_transaction WHERE id LIKE '\(prefix)' AND environment != 'Sandbox'") == 0)
        #expect(try count(console, """
            SELECT COUNT(*) FROM store_transaction t WHERE t.id LIKE '\(prefix)' AND NOT EXISTS (
                SELECT 1 FROM game_account g WHERE g.user_id = t.user_id AND g.app_id = t.app_id AND g.sid = t.sid AND g.role_id = t.role_id)
            """) == 0)
    }

    /// Another process took this console's run over (it judged it gone): the simulation stops and
    /// says so, and the write it was refused leaves nothing behind, rather than running on ahead of the store.
    @Test func aSimulationTakenOverByAnotherRunStopsAndSaysWhy() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        openQueue(console)
        console.press(.character("r"), .character("+"), .character("+"), .character("+"))
        #expect(console.state.status?.text.hasPrefix("speed") == true)
        tick(console, seconds: 1)
        let run = try #require(console.state.screenState(QueueScreen.self).run?.id)
        #expect(try count(console, "SELECT COUNT(*) FROM store_transaction WHERE run_id = \(run)") > 0)
        // When another process marks the run taken over, as a takeover on a stale lease would
        try console.outside().write { db in
            try db.execute(sql: "INSERT INTO payment_run (kind, pid, started_at, heartbeat_at) VALUES ('simulate', 1, 0, 0)")
            try db.execute(sql: "UPDATE payment_run SET ended_at = 0, taken_over_by = ? WHERE id = ?", arguments: [db.lastInsertedRowID, run])
        }
        let events = try count(console, "SELECT COUNT(*) FROM transaction_event")
        tick(console, seconds: 1)
        // Then the console's next write is refused whole and its simulation stops, saying why
        #expect(console.state.screenState(QueueScreen.self).simulation == nil)
        #expect(console.state.status?.text.contains("payment run \(run) was taken over by run \(run + 1)") == true)
        #expect(console.state.status?.text.hasPrefix("simulation stopped: ") == true)
        #expect(try count(console, "SELECT COUNT(*) FROM transaction_event") == events)
        #expect(try console.outside().read { try StoreCheck.run($0) }.isEmpty)
    }

    @Test func finishingByHandIsRefusedWhileTheTransactionIsStillPurchasing() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        openQueue(console)
        console.press(.character("s"))  // purchasing only
        let selected = try #require(console.state.screenState(QueueScreen.self).selectedRow)
        #expect(selected.state == .purchasing)
        console.press(.character("f"))
        #expect(
            console.state.status?.text
                == "finish refused: cannot finish a purchasing transaction: only purchased, failed or restored ones may be finished")
        // A dropped order (paid, no order) is refused too: finishing it would lose the purchase.
        console.press(.character("s"))  // purchased
        console.press(.character("f"))
        #expect(console.state.status?.text.hasPrefix("finish refused: no order yet") == true)
        #expect(try count(console, "SELECT COUNT(*) FROM store_transaction WHERE finished = 0 AND state = 'purchased'") > 0)
    }

    @Test func theDetailShowsTheCallbackWithTheAppKeyMasked() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        openQueue(console)
        console.press(.character("r"))
        console.press(.character("x"))
        console.type("tamperedSign:1")
        console.press(.enter)
        console.press(.character("x"))
        console.type("serverDown:1")
        console.press(.enter)
        // Run until some transaction in the queue has a rejected callback, and select it.
        var found: String?
        for _ in 0..<40 where found == nil {
            tick(console, seconds: 0.5)
            found = try console.outside().read {
                try String.fetchOne(
                    $0,
                    sql: """
                        SELECT t.id FROM store_transaction t JOIN payment_order o ON o.transaction_id = t.id
                        JOIN server_callback c ON c.order_id = o.order_id WHERE t.finished = 0 AND c.verdict != 'accepted' LIMIT 1
                        """)
            }
        }
        let id = try #require(found)
        console.press(.character(" "))  // pause, so it stays in the queue
        console.press(.character(":"))
        console.type("select \(id)")
        console.press(.enter)
        console.press(.enter)
        let text = console.text
        #expect(text.contains("Callbacks ("))
        #expect(text.contains("bad_signature"))
        #expect(text.contains("hashed"))
        let apps = try console.database.apps()
        #expect(!apps.contains { text.contains($0.appKey) })
        // The hashed string is one long word, wrapped in pieces that fill their lines: joined again it
        // shows the key masked.
        let detail = text.split(separator: "\n").compactMap { $0.components(separatedBy: "││").dropFirst().first }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " │")) }
        let joined = detail.joined().replacingOccurrences(of: " ", with: "")
        #expect(apps.contains { joined.contains(Masking.secret($0.appKey).replacingOccurrences(of: " ", with: "")) }, "\(joined)")
    }
}
