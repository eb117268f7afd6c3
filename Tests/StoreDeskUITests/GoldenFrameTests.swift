import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskUI

@Suite struct GoldenFrameTests {
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func usersScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        try Golden.check(console.frame, named: "users-\(size)")
    }

    @Test func usersScreenFilteredByAChineseName() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        console.press(.character("/"))
        console.type("王")
        try Golden.check(console.frame, named: "users-filter-wang-80x24")
    }

    @Test func usersScreenReadOnlyWithAUserSelected() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), readOnly: true)
        console.press(.character(":"))
        console.type("user 10000026")
        console.press(.enter)
        try Golden.check(console.frame, named: "users-readonly-selected-120x40")
    }

    /// Names with every kind of cluster: the border stays in the last column on every row.
    @Test func usersScreenWithEmojiSequencesFlagsSkinTonesAndCombiningMarks() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        let names = [
            "10000001": "张伟🇨🇳", "10000002": "芳芳👍🏽", "10000003": "Zoe\u{301} Ngu\u{31B}\u{303}yễn", "10000004": "爱❤️你",
            "10000005": "彩虹🏳️‍🌈", "10000006": "一家👨‍👩‍👧‍👦", "10000007": "码农👩🏽‍💻", "10000008": "No 1️⃣ 한국어",
        ]
        try console.outside().write { db in
            for (id, name) in names { try db.execute(sql: "UPDATE user SET friendly_name = ? WHERE id = ?", arguments: [name, id]) }
        }
        console.press(.ctrl("r"))
        try Golden.check(console.frame, named: "users-clusters-120x40")
        let lines = console.text.split(separator: "\n")
        #expect(lines[2].columns == 120 && lines[37].columns == 120)
        for line in lines[3..<37] {
            #expect(line.columns == 120 && line.hasSuffix("│"), "\(line)")
        }
    }

    @Test func helpOverlay() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        console.press(.character("?"))
        try Golden.check(console.frame, named: "help-80x24")
    }

    @Test(arguments: [Size(width: 40, height: 10), Size(width: 59, height: 30), Size(width: 100, height: 14)])
    func tooSmall(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        try Golden.check(console.frame, named: "too-small-\(size)")
        let joined = console.text.replacingOccurrences(of: "\n", with: " ")
        #expect(joined.contains("terminal too small: need 60x15, have \(size)"))
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func queueScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("2"))
        try Golden.check(console.frame, named: "queue-\(size)")
    }

    /// A simulation run from the console under a controlled clock: the same frame every time.
    @Test func queueScreenWithASimulationAndARejectedCallback() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .developer)
        console.press(.character("2"), .character("r"), .character("x"))
        console.type("tamperedSign:1")
        console.press(.enter)
        var now = console.state.clock
        for _ in 0..<25 {
            now = now.adding(.init(millis: 100))
            console.runtime.dispatch(.tick(now))
        }
        console.press(.character(" "), .character("s"), .character("s"), .enter)
        try Golden.check(console.frame, named: "queue-simulation-callback-120x40")
        #expect(console.text.contains("bad_signature"))
    }

    /// Callbacks POSTed to a real game server (by `simulate --callback-url` in another process): the
    /// header sums up the latest attempts, and the transaction's detail shows each attempt's status code,
    /// cut reply and latency: a refused connection, an error page, then `success`.
    @Test func queueScreenWithCallbacksOverHTTP() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        let transaction = "2000000100000102", order = "1000000000000001"
        let url = "http://127.0.0.1:8080/callback"
        let body = "amount=30.00&client_id=1001&ext=&order_id=\(order)&payment=appstore&product_id=pass.30d&sid=s1&sign=0f3a"
        try console.outside().write { db in
            try db.execute(
                sql: """
                    INSERT INTO payment_order (order_id, transaction_id, app_id, user_id, product_id, payment, sub_payment,
                        amount_cents, sid, role_id, app_order_id, ext, created_at, status)
                    SELECT ?, id, app_id, user_id, product_id, 'appstore', environment, 3000, sid, role_id, app_order_id, ext,
                        purchase_date, 'granted' FROM store_transaction WHERE id = ?
                    """, arguments: [order, transaction])
            let at = console.state.clock.millis
            let page = "<html><head><title>500 Internal Server Error</title></head><body>Fatal error: Uncaught PDOException</body></html>"
            let attempts: [(String, Int?, String, String, Int)] = [
                (CallbackAttempt.unanswered, nil, "connection refused", "no reply: connection refused", 310),
                (CallbackAttempt.refused, 500, page, "HTTP 500 is not a 2xx status", 48_250),
                (CallbackAttempt.accepted, 200, "success", "delivered: HTTP 200 \"success\" in 1.2 ms", 1_240),
            ]
            for (number, (verdict, status, reply, reason, latency)) in attempts.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO server_callback (order_id, attempt, body, sign_expected, sign_received, verdict, reason,
                            reply, received_at, url, http_status, latency_us) VALUES (?, ?, ?, '0f3a', '0f3a', ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [order, number + 1, body, verdict, reason, reply, at + Int64(number) * 2_000, url, status, latency])
            }
        }
        console.press(.character("2"))
        console.press(.character("/"))
        console.type(transaction)
        console.press(.enter)
        try Golden.check(console.frame, named: "queue-callbacks-over-http-120x40")
        #expect(console.text.contains("latest 3 POSTed: 1 delivered, 2 failed (1 non-2xx, 1 refused) · p50 1.2 ms p99 48.3 ms"))
        #expect(console.text.contains("attempt 1 unanswered · no reply · 0.3 ms"))
        #expect(console.text.contains("attempt 2 refused · HTTP 500 · 48.3 ms"))
        // The detail pane scrolled to the last attempt: delivered.
        console.press(.tab)
        for _ in 0..<14 { console.press(.character("j")) }
        try Golden.check(console.frame, named: "queue-callbacks-over-http-delivered-120x40")
        #expect(console.text.contains("attempt 3 accepted · HTTP 200 · 1.2 ms"))
        #expect(console.text.contains("\"success\""))
    }

    /// A player's subscriptions in the Users detail pane: state badges, dates, offers, access and the
    /// notifications under Apple's names.
    @Test(arguments: [("10000005", Size(width: 120, height: 40)), ("10000006", Size(width: 80, height: 24))])
    func usersScreenWithSubscriptions(user: String, size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character(":"))
        console.type("user " + user)
        console.press(.enter, .tab)
        if size.height < 30 { for _ in 0..<13 { console.press(.character("j")) } }
        try Golden.check(console.frame, named: "users-subscriptions-\(user)-\(size)")
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func subscriptionsScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.show("subscriptions")
        try Golden.check(console.frame, named: "subscriptions-\(size)")
    }

    /// How far a subscription's notifications are trusted, on the Subscriptions screen: a chain the demo
    /// left unsigned reads "decoded, not signed" as a warning; one verified under the demo's own root says
    /// so (test root), green, and names who signed it.
    @Test func subscriptionsScreenSaysHowEachSubscriptionsNotificationsAreTrusted() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("subscriptions")
        console.press(.character("j"), .character("j"))
        try Golden.check(console.frame, named: "subscriptions-decoded-120x40")
        func trustRow() throws -> Int {
            try #require(console.text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("│ trust ") })
        }
        #expect(console.text.contains("3 decoded, not signed"))
        #expect(console.frame.roles(row: try trustRow()).contains(.statusWarning))
        for _ in 0..<6 { console.press(.character("j")) }
        try Golden.check(console.frame, named: "subscriptions-verified-120x40")
        #expect(console.text.contains("4 verified (test root)"))
        #expect(console.text.contains("signed by"))
        #expect(console.frame.roles(row: try trustRow()).contains(.statusSuccess))
    }

    /// Grace period only, the second row selected, then the same screen a day later: its grace is over.
    @Test func subscriptionsScreenInGraceAsTheClockMoves() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("subscriptions")
        console.press(.character("s"), .character("s"), .character("j"))
        try Golden.check(console.frame, named: "subscriptions-grace-120x40")
        console.press(.character("s"), .character("j"))
        console.runtime.dispatch(.tick(console.state.clock.adding(.days(1))))
        try Golden.check(console.frame, named: "subscriptions-retry-a-day-later-120x40")
    }

    @Test func codesScreenSearched() throws {
        let console = try ConsoleHarness(size: Size(width: 100, height: 30))
        console.show("codes")
        console.press(.character("/"))
        console.type("offer")
        console.press(.enter, .character("j"), .character("j"))
        try Golden.check(console.frame, named: "codes-offer-100x30")
    }

    /// Restores sorted by player, newest last, filtered: the order in the title, MATCHED beside the
    /// ids where it fits (80 columns keep the transaction and the player first).
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40), Size(width: 200, height: 60)])
    func restoresSortedAndFiltered(size: Size) throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.show("status all")
        console.show("sort player desc")
        console.press(.character("/"))
        console.type("1000002")
        console.press(.enter, .character("j"))
        try Golden.check(console.frame, named: "restores-sorted-filtered-\(size)")
    }

    /// Subscriptions with the latest end first in each state, and a filter on product ids in another case.
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func subscriptionsSortedAndFiltered(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.show("subscriptions")
        console.press(.character("O"))
        try Golden.check(console.frame, named: "subscriptions-ends-desc-\(size)")
        console.press(.character("/"))
        console.type("PLUS")
        console.press(.enter)
        try Golden.check(console.frame, named: "subscriptions-ends-desc-plus-\(size)")
    }

    /// The audit log filtered by a word: which field held it.
    @Test func auditFilteredByAWord() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .support)
        console.show("audit")
        console.press(.character("/"))
        console.type("restore")
        console.press(.enter)
        try Golden.check(console.frame, named: "audit-filter-restore-120x40")
    }
}
