import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// One time line a store: every write stamps at or after the store's clock and moves it on, a store
/// opened again resumes from there, the audit log runs by its sequence, and `check` finds a stamp after
/// the clock.
@Suite struct StoreClockTests {
    /// The demo store's clock (Data/Demo/meta.json).
    static let demoClock = Instant(millis: 1_795_161_600_000)
    static let support = StaffMember(name: "li.support", role: .support)

    static func demoFile(_ folder: TemporaryFolder) throws -> String { try RestoreDeskStoreTests.demoFile(folder) }
    static func open(_ path: String) throws -> AppDatabase { try RestoreDeskStoreTests.open(path) }

    @Test func theDemoClockIsWhatTheseTestsAssume() throws {
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        #expect(try store.clock() == Self.demoClock)
        #expect(try store.now(wall: Instant(Date())) == StoreNow(instant: Self.demoClock, source: .store))
    }

    @Test func aStoreOpenedAgainNeverStampsBeforeItsLatestRow() throws {
        // Given a console that ran two minutes on from the store's clock and declined a prompt then
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let first = try Self.open(path)
        let later = Self.demoClock.adding(.minutes(2))
        try first.declineRestore(transactionId: "2000000100000095", reason: "refunded by Apple", by: Self.support, at: later)
        try first.close()
        // When the store is opened again, and a write comes in at the instant a console opened on the
        // store's old clock would have stamped it
        let second = try Self.open(path)
        let resumed = try second.now(wall: Instant(Date()))
        try second.recordPhoneReveal(userId: "10000001", by: Self.support, at: Self.demoClock, surface: "a test", reason: "ticket #1")
        // Then the store resumes from the decline, and the reveal is stamped no earlier than it
        #expect(resumed == StoreNow(instant: later, source: .store))
        let entries = try second.auditEntries(limit: 2)
        #expect(entries.map(\.action) == ["reveal.phone", "restore.decline"])
        #expect(entries.map(\.at) == [later, later])
        #expect(try second.clock() == later)
        #expect(try second.check().filter { $0.kind == "stamp_after_clock" }.isEmpty)
    }

    @Test func aStoreWithoutAClockStillNeverStampsBeforeItsLatestRow() throws {
        // Given a store that keeps no clock, written at 10:00 on the wall clock
        let folder = TemporaryFolder()
        let path = folder.path("plain.sqlite")
        let store = try AppDatabase.create(path: path)
        #expect(try store.clock() == nil)
        let ten = Instant(millis: 1_800_000_000_000)
        try store.recordPhoneReveal(userId: "u1", by: Self.support, at: ten, surface: "a test", reason: "ticket #1")
        // When the wall clock goes back an hour
        let back = ten.adding(.hours(-1))
        try store.recordPhoneReveal(userId: "u2", by: Self.support, at: back, surface: "a test", reason: "ticket #1")
        // Then the store answers and stamps at 10:00, on the wall clock's name
        #expect(try store.now(wall: back) == StoreNow(instant: ten, source: .wall))
        #expect(try store.auditEntries(limit: 2).map(\.at) == [ten, ten])
        #expect(try store.now(wall: ten.adding(.hours(1))) == StoreNow(instant: ten.adding(.hours(1)), source: .wall))
    }

    @Test func auditNewestFirstFollowsTheSequenceAcrossTwoSessions() throws {
        // Given a first session that confirmed nothing but declined at 08:02
        let folder = TemporaryFolder()
        let path = try Self.demoFile(folder)
        let first = try Self.open(path)
        try first.declineRestore(
            transactionId: "2000000100000095", reason: "refunded", by: Self.support, at: Self.demoClock.adding(.minutes(2)))
        try first.close()
        // And a second session whose first line was stamped 08:01 (as a build before the store's clock moved
        // with its writes stamped it), then one more write
        let second = try Self.open(path)
        try second.write { db in
            var early = AuditEntry(
                at: Self.demoClock.adding(.minutes(1)), actor: "li.support", role: "support", action: "login.entries.set",
                subject: "app 1001", detail: "written by an older build")
            try early.insert(db)
        }
        try second.recordPhoneReveal(userId: "10000001", by: Self.support, at: Self.demoClock, surface: "a test", reason: "ticket #1")
        // Then newest first is the order they were written in, whatever their stamps, page by page too
        let newest = try second.auditEntries(limit: 3)
        #expect(newest.map(\.action) == ["reveal.phone", "login.entries.set", "restore.decline"])
        let ids = newest.compactMap(\.id)
        #expect(ids == ids.sorted(by: >))
        let page = try second.auditEntries(anchor: .after(KeysetCursor(time: newest[0].at, id: ids[0])), limit: 2)
        #expect(page.map(\.action) == ["login.entries.set", "restore.decline"])
        let filtered = try second.auditEntries(action: "login", limit: 2)
        #expect(filtered.first?.detail == "written by an older build")
        // And the filters seek on an index, never a sort of the whole log
        let plan = try second.reader.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT * FROM audit_log WHERE actor = ? ORDER BY id DESC LIMIT 10",
                arguments: ["li.support"]
            ).map { try $0.decode(String.self, forColumn: "detail") }.joined(separator: "; ")
        }
        #expect(plan.contains("audit_on_actor_sequence") && !plan.contains("TEMP B-TREE"))
    }

    @Test func checkReportsAStampAfterTheStoresClock() throws {
        // Given a demo store, and an audit line and an event stamped after its clock (a simulation that
        // ran ahead of it, before the clock moved with every write)
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        #expect(try store.check().filter { $0.kind == "stamp_after_clock" }.isEmpty)
        try store.write { db in
            var ahead = AuditEntry(
                at: Self.demoClock.adding(.minutes(7)), actor: "sim", role: "developer", action: "sim.note", subject: "x",
                detail: "ahead")
            try ahead.insert(db)
        }
        // When the store is checked
        let found = try store.check().filter { $0.kind == "stamp_after_clock" }
        // Then the line is reported, with the clock and the latest stamp
        #expect(found.map(\.subject) == ["audit_log.at"])
        #expect(
            found.first?.message
                == "audit_log.at: 1 row is stamped after the store's clock 2026-11-20T08:00:00Z, the latest 2026-11-20T08:07:00Z")
    }

    @Test func aPaymentRunMovesTheStoresClockToTheInstantsItStamps() throws {
        // Given a demo store and a run whose simulated clock went seven minutes past the store's
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        let run = try store.startRun(.simulate, takingOver: false).run
        let stamped = Self.demoClock.adding(.minutes(7))
        let transaction = try #require(try store.reader.read { try String.fetchOne($0, sql: "SELECT id FROM store_transaction LIMIT 1") })
        // When it commits a step stamped there
        try store.apply(
            [PaymentChange(events: [PaymentEvent(at: stamped, transactionId: transaction, kind: .finished, detail: "a test")])],
            run: run)
        // Then the store's clock is there too, so a console's header shows it and nothing is after the clock
        #expect(try store.clock() == stamped)
        #expect(try store.check().filter { $0.kind == "stamp_after_clock" }.isEmpty)
    }

    /// A decoded notification of the demo catalogue (app 1001), a new monthly subscription signed at `signed`.
    static func notification(uuid: String, original: String, signed: Instant) throws -> String {
        let event = SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: uuid, signedDate: signed,
            appAppleId: 6_741_000_101, bundleId: "com.storedesk.starvoyage", environment: "Production",
            transaction: TransactionInfo(
                transactionId: original, originalTransactionId: original, productId: "com.storedesk.starvoyage.vip.monthly",
                purchaseDate: signed, originalPurchaseDate: signed, expiresDate: signed.adding(.days(30))))
        return try event.jsonLine()
    }

    static func importedAt(_ store: AppDatabase, _ uuid: String) throws -> Instant? {
        try store.reader.read {
            try Int64.fetchOne($0, sql: "SELECT imported_at FROM subscription_event WHERE notification_uuid = ?", arguments: [uuid])
        }.map { Instant(millis: $0) }
    }

    static func importing(_ line: String, into store: AppDatabase, wall: Instant, at stamp: Instant? = nil) throws
        -> NotificationImport.Report
    {
        try store.importNotifications(
            from: NotificationFile(data: Data((line + "\n").utf8), name: "t.jsonl"), allowUnverified: true, source: "t.jsonl",
            wallClock: wall, stampAt: stamp)
    }

    @Test func anImportStampsAtTheStoresClockNotTheWallClock() throws {
        // Given a demo store whose clock is a year behind the wall clock
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        let wall = Self.demoClock.adding(.days(365))
        // When a notification signed a day before the store's clock, and one signed a day after it (in the
        // wall clock's past, so not "from the future"), are imported
        let before = try Self.importing(
            Self.notification(uuid: "clock-1", original: "4000000000000001", signed: Self.demoClock.adding(.days(-1))),
            into: store, wall: wall)
        let after = try Self.importing(
            Self.notification(uuid: "clock-2", original: "4000000000000002", signed: Self.demoClock.adding(.days(1))),
            into: store, wall: wall)
        // Then both are taken in, each stamped at the store's clock as it stood, never at the wall clock
        #expect(before.imported == 1 && after.imported == 1)
        #expect(try Self.importedAt(store, "clock-1") == Self.demoClock)
        #expect(try Self.importedAt(store, "clock-2") == Self.demoClock)
        // And the clock moved up to the later signedDate only, and nothing is stamped after it
        #expect(try store.clock() == Self.demoClock.adding(.days(1)))
        #expect(try store.check().filter { $0.kind == "stamp_after_clock" }.isEmpty)
    }

    @Test func anImportNeverStampsBeforeTheLatestStampInAStoreWithoutAClock() throws {
        // Given a demo store that keeps no clock, whose latest stamp is at 10:00, and a wall clock gone
        // back an hour
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        try store.write { try $0.execute(sql: "DELETE FROM store_meta WHERE key = 'clock'") }
        let ten = Self.demoClock.adding(.days(3))
        try store.recordPhoneReveal(userId: "10000001", by: Self.support, at: ten, surface: "a test", reason: "ticket #1")
        // When a notification is imported
        let report = try Self.importing(
            Self.notification(uuid: "plain-1", original: "4000000000000003", signed: Self.demoClock), into: store,
            wall: ten.adding(.hours(-1)))
        // Then it is stamped at 10:00, not an hour before the reveal
        #expect(report.imported == 1)
        #expect(try Self.importedAt(store, "plain-1") == ten)
        #expect(try store.now(wall: ten.adding(.hours(-1))) == StoreNow(instant: ten, source: .wall))
        #expect(try store.check().filter { $0.kind == "stamp_after_clock" }.isEmpty)
    }

    @Test func anImportAtALongRunningClockMovesTheStoresClockToItsStamp() throws {
        // Given a demo store, and a server whose time line ran five minutes on from the store's clock
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        let serverNow = Self.demoClock.adding(.minutes(5))
        // When it imports a notification at that instant, and then a repeat of it a minute later
        let first = try Self.importing(
            Self.notification(uuid: "serve-1", original: "4000000000000004", signed: Self.demoClock.adding(.days(-2))),
            into: store, wall: Instant(Date()), at: serverNow)
        let repeated = try Self.importing(
            Self.notification(uuid: "serve-1", original: "4000000000000004", signed: Self.demoClock.adding(.days(-2))),
            into: store, wall: Instant(Date()), at: serverNow.adding(.minutes(1)))
        // Then the notification is stamped there and the store's clock followed it; the repeat moved nothing
        #expect(first.imported == 1 && repeated.skipped == 1)
        #expect(try Self.importedAt(store, "serve-1") == serverNow)
        #expect(try store.clock() == serverNow)
        #expect(try store.check().filter { $0.kind == "stamp_after_clock" }.isEmpty)
    }

    @Test func checkReportsANotificationImportedAfterTheStoresClock() throws {
        // Given a demo store with a notification stamped with a wall clock a year past the store's (as
        // `events import` stamped it before imports took the store's time line)
        let folder = TemporaryFolder()
        let store = try Self.open(Self.demoFile(folder))
        _ = try Self.importing(
            Self.notification(uuid: "old-1", original: "4000000000000005", signed: Self.demoClock.adding(.days(-1))),
            into: store, wall: Instant(Date()))
        try store.write {
            try $0.execute(
                sql: "UPDATE subscription_event SET imported_at = ? WHERE notification_uuid = 'old-1'",
                arguments: [Self.demoClock.adding(.days(365)).millis])
        }
        // When the store is checked, then the notification is reported
        let found = try store.check().filter { $0.kind == "stamp_after_clock" }
        #expect(found.map(\.subject) == ["subscription_event.imported_at"])
        #expect(
            found.first?.message
                == "subscription_event.imported_at: 1 row is stamped after the store's clock 2026-11-20T08:00:00Z, the latest 2027-11-20T08:00:00Z")
    }
}
