import GRDB
import StoreDeskCore

/// Takes decoded App Store notifications into the store inside the caller's transaction: each line in a
/// savepoint of its own (the notification, a new owner if one is needed, and its subscription's row),
/// so a line the store refuses leaves no trace and the others still go in.
///
/// A notification belongs to the player whose game account carries its `appAccountToken`, else to whoever
/// already owns its original transaction, else to a new player named after it. The subscription row is
/// folded again from all of its chain's notifications by their own dates, at the store's clock.
///
/// A store that keeps a clock sees time pass with what it imports: its clock moves up to the latest
/// signedDate taken in (real notifications signed after a demo store's fixed clock, the demo's own), and
/// the chains imported are folded again at that clock, and any other row whose period, grace period or
/// billing retry ended by then is written as it stands there, so `subs`, the screens and `check` agree at "now".
struct NotificationImporter {
    let db: Database
    /// Where the lines came from, kept with each notification (`notifications.jsonl`).
    let source: String
    /// When the import ran (the wall clock); also the store's now when it keeps no clock.
    let importedAt: Instant
    /// The rate a demo drives its chains at, kept on the rows it makes; nil for real notifications
    /// (and a chain keeps the rate it already has).
    var timeRate: TimeRate?
    /// Where a demo's run ended: the store's clock moves at least that far, even past the last
    /// notification it signed.
    var clockAtLeast: Instant?

    func run(_ decoded: SubscriptionEventLines) throws -> NotificationImport.Report {
        let clock = try StoreMeta.clock(in: db)
        var now = clock ?? importedAt
        if let clockAtLeast { now = max(now, clockAtLeast) }
        var report = NotificationImport.Report()
        var lines = decoded.failures.map { NotificationImport.Line(line: $0.line, outcome: .rejected($0.error.description)) }
        var importedOnLine: [String: Int] = [:]
        var chains: [String: (owner: String, product: Product)] = [:]
        for entry in decoded.entries {
            let line = try importLine(
                entry, clock: clock ?? importedAt, now: &now, importedOnLine: &importedOnLine, chains: &chains,
                report: &report)
            lines.append(line)
        }
        if let clock, now > clock {
            try StoreMeta.set(.clock, String(now.millis), in: db)
            for id in report.subscriptions {
                guard let chain = chains[id] else { continue }
                try deriveSubscription(id, owner: chain.owner, product: chain.product, now: now)
            }
            try settleRows(at: now, skipping: Set(report.subscriptions))
        }
        report.lines = lines.sorted { $0.line < $1.line }
        return report
    }

    /// Takes one line in its own savepoint. `clock` is the store's clock before the import (what a
    /// notification is judged against, with the wall clock); `now` moves up to each one taken in.
    private func importLine(
        _ entry: SubscriptionEventLines.Entry, clock: Instant, now: inout Instant, importedOnLine: inout [String: Int],
        chains: inout [String: (owner: String, product: Product)], report: inout NotificationImport.Report
    ) throws -> NotificationImport.Line {
        let event = entry.event
        var line = NotificationImport.Line(
            line: entry.line, notificationUUID: event.notificationUUID, originalTransactionId: event.originalTransactionId,
            outcome: .imported)
        if let first = importedOnLine[event.notificationUUID] {
            line.outcome = .skipped("repeats notification \(event.notificationUUID) of line \(first)")
            return line
        }
        if try SubscriptionEventRow.exists(db, uuid: event.notificationUUID) {
            line.outcome = .skipped("notification \(event.notificationUUID) is already in the store")
            return line
        }
        let product = try event.transaction.flatMap { try Product.fetchOne(db, matching: "id", $0.productId) }
        let app = try product.flatMap { try App.fetchOne(db, matching: "id", $0.appId) }
        if let problem = NotificationImport.problem(
            with: event, product: product, bundleId: app?.bundleId, clock: clock, wallClock: importedAt)
        {
            line.outcome = problem
            return line
        }
        guard let transaction = event.transaction, let product else { return line }
        var created: String?
        let lineNow = max(now, event.signedDate)
        do {
            try db.inSavepoint {
                let owner = try self.owner(of: transaction, created: &created)
                try SubscriptionEventRow(event, source: source, importedAt: importedAt).insert(db)
                let row = try deriveSubscription(transaction.originalTransactionId, owner: owner, product: product, now: lineNow)
                // Each line's own dates are in order (`NotificationImport.dateProblem`), but with the
                // chain's other notifications they may not be: such a line is refused, not kept for
                // `check` to find.
                if let problem = row?.datesProblem {
                    throw OutOfOrder(reason: "with the chain's other notifications, subscription \(row?.id ?? "") would be out of order: \(problem)")
                }
                line.userId = owner
                return .commit
            }
        } catch let error as OutOfOrder {
            line.outcome = .rejected(error.reason)
            return line
        } catch let error as DatabaseError {
            line.outcome = .rejected("the store refused it: \(error.message ?? "\(error.resultCode)")")
            return line
        }
        importedOnLine[event.notificationUUID] = entry.line
        now = lineNow
        if let owner = line.userId { chains[transaction.originalTransactionId] = (owner, product) }
        if let created, !report.usersCreated.contains(created) { report.usersCreated.append(created) }
        if !report.subscriptions.contains(transaction.originalTransactionId) {
            report.subscriptions.append(transaction.originalTransactionId)
        }
        return line
    }

    /// The player a notification belongs to; makes one named after the original transaction when
    /// nobody owns it.
    private func owner(of transaction: TransactionInfo, created: inout String?) throws -> String {
        if let token = transaction.appAccountToken?.lowercased(),
            let user = try String.fetchOne(
                db, sql: "SELECT user_id FROM game_account WHERE app_account_token = ?", arguments: [token])
        {
            return user
        }
        let original = transaction.originalTransactionId
        if let user = try String.fetchOne(
            db, sql: "SELECT user_id FROM subscription WHERE original_transaction_id = ?", arguments: [original])
        {
            return user
        }
        if let user = try String.fetchOne(
            db, sql: "SELECT user_id FROM store_transaction WHERE original_transaction_id = ? ORDER BY purchase_date LIMIT 1",
            arguments: [original])
        {
            return user
        }
        let id = NotificationImport.newOwnerId(original)
        if try User.exists(db, matching: "id", id) { return id }
        let user = NotificationImport.newOwner(
            originalTransactionId: original, firstPurchase: transaction.originalPurchaseDate ?? transaction.purchaseDate)
        try user.insert(db)
        created = id
        return id
    }

    /// Writes again, as they stand at the moved clock `now`, the rows whose stored state it has left
    /// behind (a period, a grace period or billing retry ended), so `check` and the screens' SQL agree
    /// with what readers compute: a chain with notifications is folded again, any other row played forward.
    private func settleRows(at now: Instant, skipping imported: Set<String>) throws {
        let limit = SubscriptionSearch.billingRetryLimit()
        let stale = try Subscription.fetchAll(
            db,
            sql: """
                SELECT * FROM subscription
                WHERE (state = 'active' AND expires_date <= :now)
                   OR (state = 'grace_period' AND COALESCE(grace_period_expires_date, expires_date) <= :now)
                   OR (state IN ('grace_period', 'billing_retry') AND expires_date + \(limit) <= :now)
                """,
            arguments: ["now": now])
        for row in stale where !imported.contains(row.id) {
            if try SubscriptionEventRow.hasEvents(db, originalTransactionId: row.id),
                let product = try Product.fetchOne(db, matching: "id", row.productId)
            {
                try deriveSubscription(row.id, owner: row.userId, product: product, now: now)
            } else if var settled = row.info(at: now)?.subscription(userId: row.userId, appId: row.appId) {
                settled.timeRate = row.timeRate
                try settled.save(db)
            }
        }
    }

    /// Folds the chain's notifications again and writes its row as it stands at `now`, at the chain's
    /// time rate (the one its row keeps, else the demo's).
    @discardableResult
    private func deriveSubscription(_ originalTransactionId: String, owner: String, product: Product, now: Instant) throws -> Subscription? {
        let events = try SubscriptionEventRow.events(db, originalTransactionIds: [originalTransactionId])
        let kept = try Int64.fetchOne(
            db, sql: "SELECT time_rate_month_ms FROM subscription WHERE original_transaction_id = ?",
            arguments: [originalTransactionId])
        let rate = kept.map { TimeRate(realMillisPerMonth: $0) } ?? timeRate ?? .realTime
        let snapshot = SubscriptionTimeline(events: events).snapshot(at: now, timeRates: [originalTransactionId: rate])
        guard let info = snapshot.subscription(originalTransactionId: originalTransactionId) else { return nil }
        var row = info.subscription(userId: owner, appId: product.appId)
        if row.groupId.isEmpty { row.groupId = product.subscriptionGroup ?? "" }
        row.timeRate = rate
        try row.save(db)
        return row
    }

    /// A line whose chain would be left with dates out of order: its savepoint is rolled back.
    private struct OutOfOrder: Error {
        var reason: String
    }
}

/// One `subscription_event` row: the notification as Apple's JSON, and how it arrived.
struct SubscriptionEventRow {
    var event: SubscriptionEvent
    var source: String
    var importedAt: Instant

    init(_ event: SubscriptionEvent, source: String, importedAt: Instant) {
        self.event = event
        self.source = source
        self.importedAt = importedAt
    }

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype,
                  signed_date, transaction_id, product_id, provenance, payload, source, imported_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                event.notificationUUID, event.originalTransactionId, event.notificationType.rawValue,
                event.subtype?.rawValue, event.signedDate, event.transaction?.transactionId,
                event.transaction?.productId, event.provenance.rawValue, try event.jsonLine(), source, importedAt,
            ])
    }

    /// Whether a chain has notifications: they, not its row, say how it goes on.
    static func hasEvents(_ db: Database, originalTransactionId: String) throws -> Bool {
        try Int.fetchOne(
            db, sql: "SELECT 1 FROM subscription_event WHERE original_transaction_id = ? LIMIT 1",
            arguments: [originalTransactionId]) != nil
    }

    static func exists(_ db: Database, uuid: String) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT 1 FROM subscription_event WHERE notification_uuid = ?", arguments: [uuid]) != nil
    }

    /// The notifications of these chains, decoded, with their provenance.
    static func events(_ db: Database, originalTransactionIds: [String]) throws -> [SubscriptionEvent] {
        guard !originalTransactionIds.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: originalTransactionIds.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db, sql: "SELECT provenance, payload FROM subscription_event WHERE original_transaction_id IN (\(marks))",
            arguments: StatementArguments(originalTransactionIds))
        return try rows.map { row in try decode(payload: row.decode(forColumn: "payload"), provenance: row.decode(forColumn: "provenance")) }
    }

    /// A player's notifications: those of every chain the player owns.
    static func events(_ db: Database, userId: String) throws -> [SubscriptionEvent] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT provenance, payload FROM subscription_event WHERE original_transaction_id IN
                  (SELECT original_transaction_id FROM subscription WHERE user_id = ?)
                """,
            arguments: [userId])
        return try rows.map { row in try decode(payload: row.decode(forColumn: "payload"), provenance: row.decode(forColumn: "provenance")) }
    }

    static func decode(payload: String, provenance: String) throws -> SubscriptionEvent {
        do {
            var event = try SubscriptionEvent.decode(jsonLine: payload)
            event.provenance = SubscriptionEvent.Provenance(rawValue: provenance) ?? .decodedJSON
            return event
        } catch {
            throw StoreError.invalidArgument("a stored notification cannot be read back: \(error)")
        }
    }
}
