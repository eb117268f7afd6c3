import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// Takes judged App Store notifications into the team store inside the caller's transaction, as the
/// SQLite store's `NotificationImporter` does: lines judged on every core (`ParallelJudgement`,
/// `NotificationImport.judge`), written in file order, a batch of lines under one savepoint; when the
/// server refuses a line of the batch (a constraint), the batch is rolled back and written again a line
/// a savepoint, so that line is rejected with the server's reason and the others still go in.
///
/// A notification belongs to the player whose game account carries its `appAccountToken`, else to whoever
/// already owns its chain, else to whoever bought its original transaction here, else to a new player
/// named after it. The chain's row is folded again from its notifications by their own dates
/// (`SubscriptionSettling.derive`). The store's clock is locked for the whole import; a store that keeps
/// one sees it move up to the latest signedDate taken in, and the rows left behind settled there.
struct PostgresNotificationImporter {
    let store: PostgresStore
    let db: PostgresSession.Transaction
    let source: String
    /// The stamp its notifications' `imported_at` take, on the store's time line.
    let importedAt: Instant
    /// The real time the import ran at, which "signed in the future" is judged against.
    let wallClock: Instant
    var timeRate: TimeRate?
    var clockAtLeast: Instant?
    /// The store's clock before the import (nil when it keeps none).
    let clock: Instant?
    let catalogue: NotificationImport.Catalogue

    init(
        store: PostgresStore, db: PostgresSession.Transaction, source: String, wallClock: Instant, stampAt proposed: Instant? = nil,
        timeRate: TimeRate? = nil, clockAtLeast: Instant? = nil
    ) throws {
        self.store = store
        self.db = db
        self.source = source
        let (clock, floor) = try store.clockRows(db, locking: true)
        let proposed = proposed ?? StoreNow.resolve(storeClock: clock, floor: floor, wall: wallClock).instant
        importedAt = max(proposed, StoreNow.resolve(storeClock: clock, floor: floor, wall: proposed).instant)
        self.wallClock = wallClock
        self.timeRate = timeRate
        self.clockAtLeast = clockAtLeast
        self.clock = clock
        catalogue = NotificationImport.Catalogue(
            products: try db.rows("SELECT * FROM product").map { try store.cells($0).product() },
            apps: try db.rows("SELECT * FROM app").map { try store.cells($0).app() })
    }

    var judgingClock: Instant { clock ?? importedAt }

    /// Events already decoded and trusted (a simulation's), judged here against the catalogue and clocks.
    func run(_ decoded: SubscriptionEventLines) throws -> NotificationImport.Report {
        try run(
            NotificationImport.judged(decoded, catalogue: catalogue, clock: judgingClock, wallClock: wallClock), keepLines: true)
    }

    /// Streams a file's lines through `ParallelJudgement` and writes them in order.
    func run(_ file: NotificationFile, trust: NotificationTrust, each: (NotificationImport.Line) -> Void) throws
        -> NotificationImport.Report
    {
        try NotificationImport.streamed(file, trust: trust, catalogue: catalogue, clock: judgingClock, wallClock: wallClock) {
            try run($0, keepLines: false, each: each)
        }
    }

    /// Writes judged lines in order, `Writer.batchSize` under one savepoint (`NotificationImport.written`).
    func run(
        _ judged: some Sequence<NotificationImport.Judged>, keepLines: Bool, each: (NotificationImport.Line) -> Void = { _ in }
    ) throws -> NotificationImport.Report {
        var writer = try Writer(importer: self)
        let report = try NotificationImport.written(
            judged, batchSize: Writer.batchSize, source: source, keepLines: keepLines, each: each
        ) { batch, report in try writer.write(batch: batch, report: &report) }
        // The time line reaches what the run wrote, and in a store with a clock of its own the latest
        // signedDate taken in, where the rows are settled.
        let reached = report.imported > 0 ? max(writer.now, importedAt) : writer.now
        if let clock, reached > clock {
            try store.advance(to: reached, source: .store, db)
        } else if clock == nil, report.imported > 0 {
            try store.advance(to: importedAt, db)
        }
        return report
    }

    /// What a chain's lines carry from one to the next.
    struct Chain {
        var folding: ChainFolding
        var owner: NotificationImport.ChainOwner
        var rate: TimeRate
        /// Whether this run already wrote the chain's row (it is counted once).
        var written: Bool
    }

    struct Writer {
        static let batchSize = 256
        /// Chains kept in memory at most (then forgotten, and read back from the store when met again).
        static let chainLimit = 32_768
        let importer: PostgresNotificationImporter
        var db: PostgresSession.Transaction { importer.db }
        var store: PostgresStore { importer.store }
        var now: Instant
        private var chains: [String: Chain] = [:]
        private let firstEventId: Int64

        init(importer: PostgresNotificationImporter) throws {
            self.importer = importer
            var now = importer.clock ?? importer.importedAt
            if let at = importer.clockAtLeast { now = max(now, at) }
            self.now = now
            try importer.store.holdEventLog(importer.db)
            firstEventId = (try importer.db.rows("SELECT coalesce(max(id), 0) FROM subscription_event").first?.decode(Int64.self) ?? 0) + 1
        }

        /// Writes a batch under one savepoint; when the server refuses a line, again a line at a time.
        mutating func write(batch: [NotificationImport.Judged], report: inout NotificationImport.Report) throws -> [NotificationImport.Line] {
            guard !batch.isEmpty else { return [] }
            let (chainsBefore, nowBefore) = (chains, now)
            var added = NotificationImport.Report()
            try db.run("SAVEPOINT notification_batch")
            do {
                let outcomes = try batch.map { try write($0, report: &added, alone: false) }
                try db.run("RELEASE notification_batch")
                report.add(added)
                return outcomes
            } catch let error as PSQLError where Self.isRefusal(error) {
                try db.run("ROLLBACK TO notification_batch")
                try db.run("RELEASE notification_batch")
                (chains, now) = (chainsBefore, nowBefore)
                return try batch.map { try write($0, report: &report, alone: true) }
            }
        }

        /// A constraint the line's values break (class 23): the line's refusal, not the store's failure.
        static func isRefusal(_ error: PSQLError) -> Bool { error.serverInfo?[.sqlState]?.hasPrefix("23") == true }

        private mutating func write(
            _ judged: NotificationImport.Judged, report: inout NotificationImport.Report, alone: Bool
        ) throws -> NotificationImport.Line {
            var line: NotificationImport.Line, taken: NotificationImport.Judged.Taken
            switch try judged.step(repeated: repeated) {
            case .done(let done): return done
            case .take(let l, let t): (line, taken) = (l, t)
            }
            let (event, transaction) = (taken.event, taken.transaction)
            if alone { try db.run("SAVEPOINT notification_line") }
            let chainBefore = chains[transaction.originalTransactionId], nowBefore = now
            do {
                guard let outcome = try take(event, transaction: transaction, product: taken.product, payload: taken.payload, line: judged.line, report: &report)
                else {
                    if alone { try db.run("RELEASE notification_line") }
                    line.outcome = try repeated(event) ?? .skipped("notification \(event.notificationUUID) is already in the store")
                    return line
                }
                if alone { try db.run("RELEASE notification_line") }
                line.userId = outcome
                return line
            } catch let error as PSQLError where alone && Self.isRefusal(error) {
                try db.run("ROLLBACK TO notification_line")
                try db.run("RELEASE notification_line")
                chains[transaction.originalTransactionId] = chainBefore
                now = nowBefore
                line.outcome = .rejected("the store refused it: \(error.serverInfo?[.message] ?? "a constraint")")
                return line
            }
        }

        /// Stores one notification and its chain's row; returns its owner, or nil when it was already stored.
        private mutating func take(
            _ event: SubscriptionEvent, transaction: TransactionInfo, product: Product, payload: String, line: Int,
            report: inout NotificationImport.Report
        ) throws -> String? {
            let chainId = transaction.originalTransactionId
            let lineNow = max(now, event.signedDate)
            let inserted = try db.rows(
                """
                INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype, signed_date,
                  transaction_id, product_id, provenance, root_sha256, root_subject, signer_subject, signer_serial, payload, source,
                  imported_at, source_line)
                VALUES (\(event.notificationUUID), \(chainId), \(event.notificationType.rawValue), \(event.subtype?.rawValue),
                  \(event.signedDate.millis), \(transaction.transactionId), \(transaction.productId), \(event.provenance.rawValue),
                  \(event.signer?.rootSHA256), \(event.signer?.rootSubject), \(event.signer?.leafSubject), \(event.signer?.leafSerial),
                  \(payload), \(importer.source), \(importer.importedAt.millis), \(Int64(line)))
                ON CONFLICT (notification_uuid) DO NOTHING RETURNING id
                """)
            guard !inserted.isEmpty else { return nil }
            var readBack = false
            var chain: Chain
            if let kept = chains.removeValue(forKey: chainId) {
                chain = kept
            } else {
                (chain, readBack) = try loadChain(chainId, first: event, at: lineNow)
            }
            var created: String?
            let owner = try owner(of: transaction, chain: &chain, created: &created)
            // A chain read back already has this line's notification folded in its place.
            if !readBack, !chain.folding.append(event) {
                chain.folding = ChainFolding(events: try store.chainEvents([chainId], db)[chainId] ?? [])
            }
            if let row = SubscriptionSettling.derive(chainId, folding: chain.folding, owner: owner, product: product, rate: chain.rate, now: lineNow) {
                try store.saveSubscriptions([row], db)
            }
            now = lineNow
            if !chain.written {
                chain.written = true
                report.subscriptionsWritten += 1
            }
            if let created { report.recordNewUser(created) }
            report.provenance[event.provenance, default: 0] += 1
            if chains.count >= Self.chainLimit { chains.removeAll(keepingCapacity: true) }
            chains[chainId] = chain
            return owner
        }

        /// Why a notification already stored is skipped; nil when it is not stored.
        private func repeated(_ event: SubscriptionEvent) throws -> NotificationImport.Outcome? {
            guard let row = try db.rows("SELECT id, source_line FROM subscription_event WHERE notification_uuid = \(event.notificationUUID)").first
            else { return nil }
            let (id, first) = try row.decode((Int64, Int64?).self)
            if id >= firstEventId, let first {
                return .skipped("repeats notification \(event.notificationUUID) of line \(first)")
            }
            return .skipped("notification \(event.notificationUUID) is already in the store")
        }

        /// A chain as the store holds it: its notifications folded (this line's included), its owner and rate.
        /// A row with no notification but `first` (just inserted) is a chain the store kept without any:
        /// what it knew goes into the log first (`SubscriptionBaseline`), so `first` folds after it.
        private func loadChain(_ id: String, first: SubscriptionEvent, at now: Instant) throws -> (chain: Chain, readBack: Bool) {
            let row = try db.rows("SELECT user_id, time_rate_month_ms FROM subscription WHERE original_transaction_id = \(id)").first
                .map { try $0.decode((String, Int64?).self) }
            if row != nil { try store.recordBaseline(db, chain: id, except: first.notificationUUID, at: now) }
            let folding = row == nil ? ChainFolding(events: []) : ChainFolding(events: try store.chainEvents([id], db)[id] ?? [])
            let rate = row?.1.map { TimeRate(realMillisPerMonth: $0) } ?? importer.timeRate ?? .realTime
            return (Chain(folding: folding, owner: NotificationImport.ChainOwner(owner: row?.0), rate: rate, written: false), row != nil)
        }

        /// Who a notification belongs to (see the type's note); a new player is made when nobody does.
        private func owner(of transaction: TransactionInfo, chain: inout Chain, created: inout String?) throws -> String {
            let found = try NotificationImport.owner(
                of: transaction, chain: &chain.owner,
                byToken: { try db.rows("SELECT user_id FROM game_account WHERE app_account_token = \($0) ORDER BY id LIMIT 1").first?.decode(String.self) },
                byTransaction: {
                    try db.rows(
                        #"SELECT user_id FROM store_transaction WHERE original_transaction_id = \#($0) ORDER BY purchase_date, id COLLATE "C" LIMIT 1"#
                    ).first?.decode(String.self)
                })
            let id: String
            switch found {
            case .player(let owner): return owner
            case .newPlayer(let new): id = new
            }
            if !(try db.rows(#"SELECT 1 FROM "user" WHERE id = \#(id)"#).isEmpty) { return id }
            let original = transaction.originalTransactionId
            let user = NotificationImport.newOwner(
                originalTransactionId: original, firstPurchase: transaction.originalPurchaseDate ?? transaction.purchaseDate)
            try db.run(
                #"""
                INSERT INTO "user" (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at)
                VALUES (\#(user.id), \#(user.name), \#(user.friendlyName), \#(user.idCard), \#(user.phone), \#(Int64(user.site.rawValue)),
                  \#(Int64(user.adultType.rawValue)), \#(user.fcm ? Int64(1) : 0), \#(Int64(user.authorizState)), \#(Int64(user.safety)),
                  \#(user.clientId), \#(user.createdAt.millis))
                """#)
            created = id
            return id
        }
    }
}
