import Foundation
import GRDB
import StoreDeskCore
import Testing

@testable import StoreDeskSQLite

/// A player's whole story (`AppDatabase.history`) against a real SQLite file built from the demo dataset.
@Suite struct UserHistoryTests {
    /// Ten hours after the demo store's clock: a write is never stamped before it.
    static let now = Instant(millis: 1_795_197_600_000)
    static let support = StaffMember(name: "li.support", role: .support)

    static func demo(_ folder: TemporaryFolder) throws -> AppDatabase {
        try Fixtures.demoStore(at: folder.path("demo.sqlite"))
    }

    /// 10000006's dropped order confirmed onto the paying account: an order, a callback, a grant, the
    /// timeline and an audit line, beside the player's transactions and notifications.
    static func confirmed(_ folder: TemporaryFolder) throws -> AppDatabase {
        let store = try demo(folder)
        let owner = RestoreAccount(userId: "10000006", sid: "s4", roleId: "r10000006-1")
        try store.confirmRestore(transactionId: "2000000100000095", onto: owner, by: support, at: now)
        return store
    }

    @Test func everyKindOfAPlayersStoryAppearsNewestFirst() throws {
        let folder = TemporaryFolder()
        let store = try Self.confirmed(folder)
        let history = try store.history(userId: "10000006", kinds: [], before: nil, limit: 1000)
        #expect(Set(history.map(\.kind)) == Set(HistoryKind.allCases))
        #expect(history == history.sorted(by: HistoryEntry.newerFirst))
        #expect(Set(history.map(\.cursor)).count == history.count)

        let bought = try #require(history.first { $0.kind == .transaction && $0.transactionId == "2000000100000095" })
        #expect(bought.originalTransactionId != nil && bought.appOrderId != nil)
        let callback = try #require(history.first { $0.kind == .callback })
        #expect(callback.transactionId == "2000000100000095" && callback.orderId == "10000000001")
        #expect(callback.detail.contains("accepted") && callback.detail.contains("reply"))
        let grant = try #require(history.first { $0.kind == .grant })
        #expect(grant.orderId == "10000000001" && grant.detail.contains("(restore)"))
        let restores = history.filter { $0.kind == .restore }.map(\.detail)
        #expect(restores.count == 2 && restores[0].contains("confirmed by li.support") && restores[1].contains("(confirmed)"))
        let audit = try #require(history.first { $0.kind == .audit })
        #expect(audit.detail.hasPrefix("restore.confirm by li.support") && audit.transactionId == "2000000100000095")
        // The order id (11 digits, starting with 1) is an id of the line's own, not a phone number.
        #expect(audit.orderId == "10000000001" && audit.maskedDetail.contains("order 10000000001"))
        #expect(grant.originalTransactionId == "2000000100000095")
        #expect(history.contains { $0.kind == .state && $0.detail.hasPrefix("granted") })
        // The newest line is the decision's moment: the confirm wrote everything at one instant.
        #expect(history.first?.at == Self.now)
    }

    /// A transaction's timeline lines carry its platform order id: `platform order 10000000001 created` shows
    /// the id as it is (11 digits starting with 1, but no phone) and `--json` has its `order_id`.
    @Test func aTimelineLineNamingItsPlatformOrderShowsItPlain() throws {
        let folder = TemporaryFolder()
        let store = try Self.confirmed(folder)
        let history = try store.history(userId: "10000006", kinds: [.state], before: nil, limit: 1000)
        let created = try #require(history.first { $0.detail.contains("platform order") })
        #expect(created.orderId == "10000000001")
        #expect(created.maskedDetail.contains("platform order 10000000001 created"))
        for line in history where line.transactionId == "2000000100000095" { #expect(line.orderId == "10000000001", "\(line.detail)") }
        let all = try store.history(userId: "10000006", kinds: [], before: nil, limit: 1000)
        #expect(!all.contains { $0.maskedDetail.contains("100****0001") })
    }

    @Test func aNotificationIsVerifiedOnlyWhenItsSignatureWas() throws {
        let folder = TemporaryFolder()
        let store = try Self.demo(folder)
        let notifications = try store.history(userId: "10000006", kinds: [.notification], before: nil, limit: 100)
        let verified = try store.reader.read { db in
            try Int.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) FROM subscription s JOIN subscription_event e USING (original_transaction_id)
                    WHERE s.user_id = '10000006' AND e.provenance = 'verified'
                    """) ?? -1
        }
        #expect(!notifications.isEmpty && notifications.allSatisfy { $0.trust != nil && $0.originalTransactionId != nil })
        #expect(notifications.filter { $0.trust == .verified }.count == verified)
        #expect(notifications.filter { $0.trust == .unverified }.allSatisfy { !$0.detail.hasSuffix(", verified") })
        #expect(try store.history(userId: "10000006", kinds: [.grant], before: nil, limit: 100).allSatisfy { $0.trust == nil })
    }

    @Test func aDeclineAndItsAuditLineAppearAndKindsFilter() throws {
        let folder = TemporaryFolder()
        let store = try Self.demo(folder)
        try store.recordPhoneReveal(userId: "10000024", by: Self.support, at: Self.now, surface: "test", reason: "ticket #1")
        _ = try store.declineRestore(
            transactionId: "2000000100000093", reason: "refunded by Apple", by: Self.support, at: Self.now.adding(.seconds(1)))
        let history = try store.history(userId: "10000024", kinds: [.restore, .audit], before: nil, limit: 100)
        #expect(Set(history.map(\.kind)) == [.restore, .audit])
        #expect(history.map(\.detail) == [
            // One instant: the keyset's kind breaks the tie (restore after audit, newest first).
            "prompt 3 declined by li.support (support): refunded by Apple",
            "restore.decline by li.support (support): refunded by Apple",
            "reveal.phone by li.support (support): phone revealed on test: ticket #1",
            "prompt 3: restore 1 x com.storedesk.pocketgarden.coins.3000 (declined)",
        ])
        let transactions = try store.history(userId: "10000024", kinds: [.transaction], before: nil, limit: 100)
        #expect(!transactions.isEmpty && transactions.allSatisfy { $0.kind == .transaction })
    }

    @Test func pagesByTheCursorReturnTheRestWithNoOverlap() throws {
        let folder = TemporaryFolder()
        let store = try Self.confirmed(folder)
        let whole = try store.history(userId: "10000006", kinds: [], before: nil, limit: 1000)
        #expect(whole.count > 10)
        var paged: [HistoryEntry] = []
        var cursor: HistoryCursor?
        while true {
            let page = try store.history(userId: "10000006", kinds: [], before: cursor, limit: 3)
            if page.isEmpty { break }
            #expect(page.count <= 3)
            paged += page
            cursor = page.last?.cursor
        }
        #expect(paged == whole)
        let filtered = try store.history(userId: "10000006", kinds: [.state, .callback], before: nil, limit: 1000)
        let rest = try store.history(userId: "10000006", kinds: [.state, .callback], before: filtered[1].cursor, limit: 1000)
        #expect(rest == Array(filtered.dropFirst(2)))
    }

    @Test func phoneNumbersInADetailAreMaskedButTheLinesOwnIdsAreNot() {
        let entry = HistoryEntry(
            at: Self.now, kind: .audit, id: "1", orderId: "10000000001",
            detail: "called 13800001234 about order 10000000001, then 13912345678")
        #expect(entry.maskedDetail == "called 138****1234 about order 10000000001, then 139****5678")
        var other = entry
        other.orderId = nil
        #expect(other.maskedDetail == "called 138****1234 about order 100****0001, then 139****5678")
    }

    @Test func anUnknownPlayerIsRefused() throws {
        let folder = TemporaryFolder()
        let store = try Self.demo(folder)
        #expect(throws: StoreError.unknownUser(id: "nobody")) {
            try store.history(userId: "nobody", kinds: [], before: nil, limit: 10)
        }
    }

    @Test func everyReadSeeksOnAnIndexOnThePlayersRows() throws {
        let folder = TemporaryFolder()
        let store = try Self.confirmed(folder)
        let cursor = HistoryCursor(at: Self.now, kind: .restore, id: "x")
        for read in HistoryProcedures.pages(userId: "10000006", before: cursor, limit: 10, dialect: .sqlite) {
            let (sql, values) = read.sql.rendered(.sqlite)
            let plan = try store.reader.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: SQLiteTransaction.arguments(values)).map { $0["detail"] as String }
            }
            #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(read.kind): \(plan)")
            let first = try #require(plan.first { $0.hasPrefix("SEARCH") }, "\(read.kind): \(plan)")
            let playerIndex = [
                "transaction_on_user", "grant_on_user", "subscription_on_user", "restore_on_user", "audit_on_subject_sequence",
            ]
            #expect(playerIndex.contains { first.contains($0) }, "\(read.kind): \(plan)")
        }
    }
}
