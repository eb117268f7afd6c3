import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// Six minutes of payment activity before the demo store's clock, the same every run: purchases in a
/// wave, grants behind them, failures now and then, callbacks answered between 200 ms and 800 ms after
/// their order. Each purchase is a finished copy of a demo transaction (so the queue's list and counts
/// stay the demo's) with an order of its own.
enum QueueActivitySeed {
    struct Bucket: Equatable { var purchases: Int, grants: Int, failures: Int, latency: Int }

    /// What bucket `b` of the window holds.
    static func bucket(_ b: Int) -> Bucket {
        let purchases = 2 + (b * 7) % 9
        let failures = b % 11 == 0 ? 2 : b % 5 == 0 ? 1 : 0
        let grants = purchases - failures
        return Bucket(purchases: purchases, grants: grants, failures: failures, latency: grants > 0 ? 200 + (b * 37 % 5) * 150 : 0)
    }

    static func window(_ clock: Instant) -> QueueActivity.Window {
        .ending(at: clock, bucket: QueueScreen.activityBucket, count: QueueScreen.activityBuckets)
    }

    static func insert(into db: Database, clock: Instant) throws {
        let window = window(clock)
        let template = try String.fetchOne(db, sql: "SELECT transaction_id FROM payment_order ORDER BY order_id LIMIT 1") ?? ""
        for b in 0..<window.count {
            let shape = bucket(b)
            let start = window.start.millis + Int64(b) * window.bucket.millis
            for k in 0..<shape.purchases {
                let id = "pix\(b)-\(k)", at = start + Int64(k) * 100
                // Never past the clock: the window's last bucket is the one the clock is in.
                guard at <= clock.millis - 1000 else { continue }
                try db.execute(
                    sql: """
                        INSERT INTO store_transaction (id, original_transaction_id, user_id, app_id, product_id, quantity, state,
                            failure_reason, environment, sid, role_id, app_order_id, ext, purchase_date, expires_date,
                            revocation_date, revocation_reason, finished)
                        SELECT ?, ?, user_id, app_id, product_id, quantity, state, failure_reason, environment, sid, role_id,
                            app_order_id, ext, ?, NULL, NULL, NULL, 1 FROM store_transaction WHERE id = ?
                        """, arguments: [id, id, at, template])
                try event(db, id, at, .purchasing)
                if k < shape.failures {
                    try event(db, id, at + 50, .failed)
                    continue
                }
                try db.execute(
                    sql: """
                        INSERT INTO payment_order (order_id, transaction_id, app_id, user_id, product_id, payment, sub_payment,
                            amount_cents, sid, role_id, app_order_id, ext, created_at, status)
                        SELECT ?, ?, app_id, user_id, product_id, payment, sub_payment, amount_cents, sid, role_id, app_order_id,
                            ext, ?, 'granted' FROM payment_order WHERE transaction_id = ?
                        """, arguments: ["9\(b * 100 + k)", id, at + 10, template])
                let replied = min(at + 10 + Int64(shape.latency), clock.millis - 1)
                try event(db, id, replied, .callbackAccepted)
                try event(db, id, replied, .granted)
            }
        }
    }

    static func event(_ db: Database, _ id: String, _ at: Int64, _ kind: PaymentEvent.Kind) throws {
        try db.execute(
            sql: "INSERT INTO transaction_event (transaction_id, at, kind, detail) VALUES (?, ?, ?, 'seeded')",
            arguments: [id, at, kind.rawValue])
    }

    /// A console on the Queue with the seed in its store, at `size`, drawn in `glyphs`.
    static func console(size: Size, glyphs: TimelineBar.Glyphs = .unicode) throws -> ConsoleHarness {
        let console = try ConsoleHarness(size: size) { $0.glyphs = glyphs }
        let clock = console.state.clock
        try console.outside().write { try insert(into: $0, clock: clock) }
        console.show("queue")
        return console
    }
}

/// The Queue's pictures: the sparklines' buckets (window, fill, reads on the tick) and the labelled
/// state bar (shares, fitting, NO_COLOR), and golden frames of both.
@Suite struct QueuePicturesTests {
    // MARK: - Buckets

    @Test func aWindowEndsWithTheBucketTheInstantIsInAlignedToTheBucket() {
        let window = QueueActivity.Window.ending(at: Instant(millis: 1_000_012_345), bucket: .seconds(5), count: 4)
        #expect(window.start == Instant(millis: 999_995_000) && window.end == Instant(millis: 1_000_015_000))
        #expect(window.index(of: Instant(millis: 1_000_012_345)) == 3)
        #expect(window.index(of: Instant(millis: 999_995_000)) == 0)
        #expect(window.index(of: Instant(millis: 999_994_999)) == nil)
        #expect(window.index(of: window.end) == nil)
        // The same window a moment later in the same bucket: the columns keep their instants.
        #expect(QueueActivity.Window.ending(at: Instant(millis: 1_000_014_999), bucket: .seconds(5), count: 4) == window)
        // Before 1970 too (floor, not truncation).
        #expect(QueueActivity.Window.ending(at: Instant(millis: -1), bucket: .seconds(5), count: 1).start == Instant(millis: -5000))
    }

    @Test func rowsFillTheirSeriesAndRepliesKeepTheSlowest() {
        var activity = QueueActivity(window: .ending(at: Instant(millis: 60_000), bucket: .seconds(10), count: 3))
        activity.add(4, of: .purchasing, bucket: 0)
        activity.add(3, of: .granted, bucket: 2)
        activity.add(1, of: .failed, bucket: 2)
        activity.add(2, of: .callbackRejected, bucket: 2)
        activity.add(9, of: .orderCreated, bucket: 1)  // not a series
        activity.add(9, of: .purchasing, bucket: 3)  // outside
        activity.reply(after: 300, bucket: 1)
        activity.reply(after: 200, bucket: 1)
        activity.reply(after: 900, bucket: -1)
        #expect(activity.purchases == [4, 0, 0] && activity.grants == [0, 0, 3] && activity.failures == [0, 0, 3])
        #expect(activity.latencyMillis == [0, 300, 0])
        #expect(activity[.latency] == activity.latencyMillis)
        #expect(Set(QueueActivity.kinds) == [
            .purchasing, .granted, .failed, .callbackRejected, .callbackFailed, .callbackAbandoned, .callbackAccepted, .callbackDuplicate,
        ])
    }

    @Test func theQueueReadsTheLastMinutesOnStartAndOnTheTickAtMostOnceASecond() throws {
        let console = try QueueActivitySeed.console(size: Size(width: 120, height: 40))
        let queue = console.state.screenState(QueueScreen.self)
        let activity = try #require(queue.activity)
        let window = QueueActivitySeed.window(console.state.clock)
        #expect(activity.window == window)
        let expected = (0..<window.count).map(QueueActivitySeed.bucket)
        // The last bucket is cut at the clock.
        #expect(activity.purchases.dropLast() == expected.map(\.purchases).dropLast())
        #expect(activity.grants.dropLast() == expected.map(\.grants).dropLast())
        #expect(activity.failures.dropLast() == expected.map(\.failures).dropLast())
        #expect(activity.latencyMillis.dropLast() == expected.map(\.latency).dropLast())

        // A tick within the second asks nothing; one a second later reads again.
        let asked = try #require(console.state.screenState(QueueScreen.self).activityAskedAt)
        console.runtime.dispatch(.tick(asked.adding(.init(millis: 500))))
        #expect(console.state.screenState(QueueScreen.self).activityAskedAt == asked)
        console.runtime.dispatch(.tick(asked.adding(.seconds(1))))
        #expect(console.state.screenState(QueueScreen.self).activityAskedAt == asked.adding(.seconds(1)))
    }

    @Test func anOlderWindowArrivingLateIsDropped() throws {
        let console = try QueueActivitySeed.console(size: Size(width: 120, height: 40))
        var screen = console.state.screenState(QueueScreen.self)
        var context = console.state.context
        let shown = try #require(screen.activity)
        let older = QueueActivity(window: .ending(at: shown.window.start, bucket: QueueScreen.activityBucket, count: QueueScreen.activityBuckets))
        _ = screen.apply(.activity(older), &context)
        #expect(screen.activity == shown)
    }

    // MARK: - The state bar

    static func stateBar(_ counts: [Int]) -> LabelledBar {
        let words = [["purchasing", "buying", ""], ["purchased", "paid", ""], ["deferred", "defer", ""], ["failed", "fail", ""], ["restored", "rest", ""]]
        let priorities = [1, 2, 4, 3, 5]
        return LabelledBar(counts.indices.map { LabelledBar.Part(words[$0], count: counts[$0], role: .text, priority: priorities[$0]) })
    }

    @Test func eachPartTakesItsShareAndASmallOneStillShows() {
        let bar = Self.stateBar([60, 30, 0, 1, 9])
        #expect(bar.columns(width: 20) == [11, 6, 0, 1, 2])
        #expect(bar.columns(width: 20).reduce(0, +) == 20)
        #expect(Self.stateBar([0, 0, 0, 0, 0]).columns(width: 10) == [0, 0, 0, 0, 0])
        #expect(Self.stateBar([1, 1, 1, 1, 1]).columns(width: 3).reduce(0, +) == 3)
    }

    @Test func wordsShortenLeastImportantFirstAndNoNumberIsEverCut() {
        let bar = Self.stateBar([1234, 56, 7, 89, 0])
        let wide = bar.text(width: 120, glyphs: .unicode)
        #expect(wide.hasSuffix("█ purchasing 1,234  ▓ purchased 56  ▒ deferred 7  ░ failed 89  ▚ restored 0"))
        #expect(wide.hasPrefix("█") && wide.count <= 120)
        // Narrower: restored shortens first, then deferred, failed, purchased, purchasing.
        let (levels, _) = bar.fitted(width: 76, glyphs: .unicode)
        #expect(levels[4] >= levels[2] && levels[2] >= levels[3] && levels[3] >= levels[1] && levels[1] >= levels[0])
        for width in stride(from: 24, through: 120, by: 1) {
            let line = bar.text(width: width, glyphs: .ascii)
            #expect(line.count <= width, "\(width): \(line)")
            for number in ["1,234", "56", "7", "89", "0"] { #expect(line.contains(number), "\(width): \(line)") }
            let ascii = line.allSatisfy { $0.isASCII }
            #expect(ascii)
        }
        // The least a line can be: fills and numbers.
        #expect(bar.text(width: 24, glyphs: .ascii) == "#1,234  =56  +7  -89  ~0")
    }

    @Test func theFillsTellThePartsApartWithoutColour() {
        for glyphs in TimelineBar.Glyphs.allCases {
            let fills = (0..<5).map { LabelledBar.fill($0, glyphs: glyphs) }
            #expect(Set(fills).count == 5)
        }
    }

    // MARK: - Golden frames

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)], TimelineBar.Glyphs.allCases)
    func queueWithSparklines(size: Size, glyphs: TimelineBar.Glyphs) throws {
        let console = try QueueActivitySeed.console(size: size, glyphs: glyphs)
        try Golden.check(console.frame, named: "queue-sparklines-\(glyphs.rawValue)-\(size)")
        let text = console.text
        for name in ["purchases", "grants", "failures", "latency"] { #expect(text.contains(name + " "), "\(name)") }
        #expect(text.contains(glyphs == .unicode ? "█" : "#"))
        if glyphs == .ascii { #expect(!text.contains("▁") && !text.contains("█")) }
        // Latest and largest: the seed's busiest bucket had 10 purchases, its slowest reply 800 ms.
        #expect(text.contains("max 10") && text.contains("max 800ms"))
    }

    /// What a NO_COLOR terminal shows (the frame's text: the mono theme only adds bold and reverse):
    /// each state's word and count, the bar's parts told apart by their fills.
    @Test func theStateBarReadsWithoutColour() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24)) { $0.glyphs = .ascii }
        console.show("queue")
        try Golden.check(console.frame, named: "queue-state-bar-nocolor-80x24")
        let counts = console.state.screenState(QueueScreen.self).counts
        let header = try #require(console.text.split(separator: "\n").first { $0.contains(" in queue ") }.map(String.init))
        #expect(header.contains("\(counts.values.reduce(0, +)) in queue"))
        for state in TransactionState.allCases {
            #expect(header.contains(" \(counts[state] ?? 0)"), "\(state) in \(header)")
        }
        #expect(header.contains("purchasing") && header.contains("#"))
    }
}
