import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// Takes judged App Store notifications into the store inside the caller's transaction: each line in a
/// savepoint of its own (the notification, a new owner if one is needed, and its subscription's row),
/// so a line the store refuses leaves no trace and the others still go in.
///
/// Lines arrive already judged (decoded, signatures verified, checked against the catalogue and the
/// clocks: `NotificationImport.judge`, on every core, by `ParallelJudgement`); this only finds owners and
/// writes, on cached statements. What it remembers is bounded: the chains it touched recently (their
/// folded state and owner, so a chain's next line folds without reading the store again), nothing a
/// line: a repeat of an earlier line is found in the store, whose row names its `source_line`. So a file
/// of any length keeps memory flat.
///
/// A notification belongs to the player whose game account carries its `appAccountToken`, else to whoever
/// already owns its original transaction, else to a new player named after it. The subscription row is
/// folded again from all of its chain's notifications by their own dates, at the store's clock.
///
/// A store that keeps a clock sees time pass with what it imports: its clock moves up to the latest
/// signedDate taken in (real notifications signed after a demo store's fixed clock, the demo's own), and
/// every row whose period, grace period or billing retry ended by then is written as it stands there,
/// so `subs`, the screens and `check` agree at "now".
struct NotificationImporter {
    let db: Database
    /// Where the lines came from, kept with each notification (`notifications.jsonl`).
    let source: String
    /// The stamp its notifications' `imported_at` take: an instant on the store's time line
    /// (`StoreMeta.stampInstant`), never before anything already written and never after the store's
    /// clock, which reaches it when the import took something in.
    let importedAt: Instant
    /// The real time the import ran at: a notification signed after both it and the store's clock is
    /// "signed in the future". Never a stamp.
    let wallClock: Instant
    /// The rate a demo drives its chains at, kept on the rows it makes; nil for real notifications
    /// (and a chain keeps the rate it already has).
    var timeRate: TimeRate?
    /// Where a demo's run ended: the store's clock moves at least that far, even past the last
    /// notification it signed.
    var clockAtLeast: Instant?
    /// The store's clock before the import (nil when it keeps none).
    let clock: Instant?
    /// The apps and products, read once.
    let catalogue: NotificationImport.Catalogue

    /// An importer whose notifications are stamped on the store's time line: at `proposed` (the caller's
    /// clock on that line, e.g. `serve`'s ledger), else at the store's instant at `wallClock`, but never
    /// before the store's clock or latest stamp (`StoreMeta.stampInstant`). The time line reaches the
    /// stamp when the run has imported something (`run`); `wallClock` stays the real time, for judging.
    ///
    ///     try NotificationImporter(db: db, source: "notifications.jsonl", wallClock: Instant(Date())).run(lines)
    init(
        db: Database, source: String, wallClock: Instant, stampAt proposed: Instant? = nil, timeRate: TimeRate? = nil,
        clockAtLeast: Instant? = nil
    ) throws {
        self.db = db
        self.source = source
        importedAt = try StoreMeta.stampInstant(proposed ?? StoreMeta.now(in: db, wall: wallClock).instant, in: db)
        self.wallClock = wallClock
        self.timeRate = timeRate
        self.clockAtLeast = clockAtLeast
        clock = try StoreMeta.clock(in: db)
        catalogue = NotificationImport.Catalogue(products: try Product.fetchAll(db), apps: try App.fetchAll(db))
    }

    /// Why an operator's file with no line at all (empty, or blank lines only) is refused.
    static let noLineMessage = NotificationImport.noLineMessage

    /// What a notification signed after is judged against, with the wall clock: the store's clock, or in
    /// a store without one its instant (the wall clock, never before its latest stamp).
    var judgingClock: Instant { clock ?? importedAt }

    /// Events already decoded and trusted (a simulation's), judged here against the catalogue and clocks.
    func run(_ decoded: SubscriptionEventLines) throws -> NotificationImport.Report {
        try run(
            NotificationImport.judged(decoded, catalogue: catalogue, clock: judgingClock, wallClock: wallClock), keepLines: true)
    }

    /// Streams a file's lines through `ParallelJudgement` (judged on every core with `trust`) and writes
    /// them in order.
    func run(
        _ file: NotificationFile, trust: NotificationTrust, keepLines: Bool,
        each: (NotificationImport.Line) -> Void = { _ in }
    ) throws -> NotificationImport.Report {
        try NotificationImport.streamed(file, trust: trust, catalogue: catalogue, clock: judgingClock, wallClock: wallClock) {
            try run($0, keepLines: keepLines, each: each)
        }
    }

    /// Writes judged lines in order (`NotificationImport.written`). `each` hears every line's fate as it is
    /// decided; `keepLines` also keeps them in the report (for small imports).
    ///
    /// - Throws: `StoreError.dataFile` when no line at all was a notification (the caller's transaction
    ///   then rolls back: the store is untouched), and any error writing the store.
    func run(
        _ judged: some Sequence<NotificationImport.Judged>, keepLines: Bool,
        each: (NotificationImport.Line) -> Void = { _ in }
    ) throws -> NotificationImport.Report {
        var writer = try Writer(importer: self)
        let report = try NotificationImport.written(
            judged, batchSize: Writer.batchSize, source: source, keepLines: keepLines, each: each
        ) { batch, report in try writer.write(batch: batch, report: &report) }
        try writer.owners.search.restore()
        // The time line reaches what the run wrote: its stamp, once a notification carries it, and in a
        // store with a clock of its own the latest signedDate taken in, where the rows are settled.
        let reached = report.imported > 0 ? max(writer.now, importedAt) : writer.now
        if let clock, reached > clock {
            try StoreMeta.set(.clock, String(reached.millis), in: db)
            try settleRows(at: reached)
        } else if clock == nil, report.imported > 0 {
            try StoreMeta.advance(to: importedAt, in: db)
        }
        return report
    }

    /// Writes again, as they stand at the moved clock `now`, the rows whose stored state it has left
    /// behind (a period, a grace period or billing retry ended), so `check` and the screens' SQL agree
    /// with what readers compute: a chain with notifications is folded again, any other row played forward.
    ///
    /// The rows are taken a page at a time, not all at once: a year of history leaves most of its chains
    /// behind the moved clock (400,000 rows after 2,000,000 lines), and holding them all was the import's
    /// peak memory, at its very end. Each state is walked along `subscription_on_state` (state,
    /// expires_date, key), so a small import into a big store reads only the rows it settles (`serve`
    /// imports one notification a request).
    func settleRows(at now: Instant) throws {
        let passes = SubscriptionSettling.stalePasses(now: ":now")
        let rows = try SubscriptionRowStatement(db)
        for pass in passes {
            let page = try db.cachedStatement(sql: """
                SELECT * FROM subscription
                WHERE state = :state AND \(pass.stale)
                  AND (expires_date, original_transaction_id) > (:expires, :after)
                ORDER BY expires_date, original_transaction_id
                LIMIT \(SubscriptionSettling.pageSize)
                """)
            var after: (expires: Int64, id: String) = (.min, "")
            while true {
                // A settled row leaves this state's stale range (or keeps its place in it), so the walk
                // goes on after the page's last row and meets no row twice.
                let stale = try Subscription.fetchAll(
                    page, arguments: ["state": pass.state, "now": now, "expires": after.expires, "after": after.id])
                guard let last = stale.last else { break }
                after = (last.expiresDate.millis, last.id)
                try settle(stale, at: now, rows: rows)
            }
        }
    }

    private func settle(_ stale: [Subscription], at now: Instant, rows: SubscriptionRowStatement) throws {
        for row in stale {
            let events = try SubscriptionEventRow.events(db, originalTransactionIds: [row.id])
            if let settled = SubscriptionSettling.settled(row, events: events, product: catalogue.products[row.productId], at: now) {
                try rows.save(settled)
            }
        }
    }
}

extension NotificationImporter {
    /// The search index of the players an import makes, written once at the end instead of by the
    /// `user_search_insert` trigger line by line.
    ///
    /// With the trigger, every new player's trigrams wait in FTS5's memory, and FTS5 writes them out as a
    /// segment of their own at the next savepoint, which is the next line's: a third of a decoded import's
    /// writing went into those tiny segments and their merges. So before the import makes its first
    /// player the trigger is dropped (inside the import's transaction: a failed import, or a line rolled
    /// back, rolls the drop back with everything else), and at the end the players added are indexed by
    /// one statement, as the trigger would have indexed them, and the trigger is made again from its own
    /// SQL. An import that makes no player leaves the schema alone (a store with nothing imported stays
    /// byte for byte as it was).
    final class DeferredUserSearch {
        let db: Database
        /// The rowid the first player made by this import gets.
        let firstNewRowid: Int64
        /// The trigger's `CREATE TRIGGER` text, once this import dropped it.
        private var triggerSQL: String?
        /// Whether the trigger is known to be dropped now (false after a line rolled back: looked up again).
        private var dropped = false

        init(_ db: Database) throws {
            self.db = db
            firstNewRowid = (try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM user") ?? 0) + 1
        }

        /// Before a player is inserted: drops the trigger if it is there.
        func beforeNewUser() throws {
            guard !dropped else { return }
            if let sql = try Self.trigger(db) {
                triggerSQL = sql
                try db.execute(sql: "DROP TRIGGER user_search_insert")
            }
            dropped = true
        }

        /// After a line rolled back (its drop may have gone with it).
        func lineRolledBack() { dropped = false }

        /// Indexes the players added while the trigger was dropped and makes it again.
        func restore() throws {
            guard let triggerSQL, try Self.trigger(db) == nil else { return }
            // One statement a slice of players: a single statement over every player an import made
            // (400,000 after 2,000,000 lines) grew the process by 26 MB before it finished, the import's
            // peak memory; a slice at a time, the end adds nothing to the peak of the lines before it.
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM user") ?? 0
            let index = try db.cachedStatement(sql: """
                INSERT INTO user_search(rowid, id, name, friendly_name)
                SELECT rowid, id, name, friendly_name FROM user WHERE rowid >= ? AND rowid < ? ORDER BY rowid
                """)
            for start in stride(from: firstNewRowid, through: last, by: Self.indexSlice) {
                try index.execute(arguments: [start, start + Int64(Self.indexSlice)])
            }
            try db.execute(sql: triggerSQL)
        }

        /// How many players one indexing statement takes.
        static let indexSlice = 4_096

        private static func trigger(_ db: Database) throws -> String? {
            try String.fetchOne(
                db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'user_search_insert' AND tbl_name = 'user'")
        }
    }

    /// What one chain's lines need from the lines before them, so the next one folds without reading the
    /// store: the chain folded so far (its state, not its notifications), its owner (and the token that
    /// named it) and rate. (Its product comes with each line.)
    struct Chain {
        var folding: ChainFolding
        var owner: NotificationImport.ChainOwner
        var rate: TimeRate
        /// Whether this run already wrote the chain's row (it is counted once).
        var written: Bool
        /// What the store's `subscription` row of the chain is known to be: none, or one with these
        /// owner, app and product (so a line that keeps them writes it with `SubscriptionRowStatement.update`).
        var stored: SubscriptionRowStatement.Stored
    }

    /// The chains touched lately, in two generations: a chain used again moves to the newer one, and the
    /// older one is dropped when the newer fills. Bounded, whatever the file's size or order: at most
    /// 2 × `generation` chains, each about a kilobyte (its folded state in a box of its own, so a
    /// generation's table holds references, not the state's several hundred bytes a slot).
    ///
    /// A chain kept lives between one and two generations of lines. A year of history in date order has a
    /// chain's next line a month of lines later (8,300 lines in 100,000): with 8,192 a generation about half
    /// the chains were dropped before their next line and read back (their notifications decoded again
    /// on the writer thread), and the import of 100,000 lines ran at half the rate of 10,000. A larger file
    /// has more chains open at once than any fixed bound: those are read back from the store.
    struct RecentChains {
        static let generation = 16_384
        final class Box {
            let chain: Chain
            init(_ chain: Chain) { self.chain = chain }
        }
        private var newer: [String: Box] = [:]
        private var older: [String: Box] = [:]

        mutating func take(_ id: String) -> Chain? {
            (newer.removeValue(forKey: id) ?? older.removeValue(forKey: id))?.chain
        }

        func peek(_ id: String) -> Chain? { (newer[id] ?? older[id])?.chain }

        mutating func put(_ id: String, _ chain: Chain) {
            if newer.count >= Self.generation {
                older = newer
                newer = [:]
                newer.reserveCapacity(Self.generation)
            }
            newer[id] = Box(chain)
        }
    }

    /// The writes of one import on cached statements, and the state that runs from line to line.
    ///
    /// Lines are written `batchSize` at a time under one savepoint: a savepoint per line copied every
    /// page a line touched into SQLite's statement journal, line after line, and that copying was most of
    /// a decoded import's writing. When the store refuses any line of a batch (a constraint), the batch
    /// is rolled back whole, the writer's state put back as it was before it, and its lines written again
    /// one savepoint each, so the refused line is rejected with its reason and the others still go in.
    struct Writer {
        /// Lines under one savepoint: a few hundred keep the journal of the pages they touch a few MB.
        static let batchSize = 256
        let importer: NotificationImporter
        var db: Database { importer.db }
        /// The store's now: its clock (or the wall clock) moved up to each notification taken in.
        var now: Instant
        private var chains = RecentChains()
        /// While a batch is written under one savepoint: each chain it touched as it was before the batch
        /// (nil when it was not in memory), to put back if the batch rolls back.
        private var batchUndo: [String: Chain?]?
        /// The id the first notification this run stores gets: a notification already stored with an id
        /// from here on came from an earlier line of this run, which its `source_line` names.
        private let firstEventId: Int64
        private let stored: Statement
        private let insertEvent: BulkInsert
        private let rows: SubscriptionRowStatement
        let owners: OwnerLookup
        private let storedRow: Statement
        private let events: Statement
        private let savepoint: BulkInsert
        private let release: BulkInsert
        private let rollback: BulkInsert
        private let batchSavepoint: BulkInsert
        private let batchRelease: BulkInsert
        private let batchRollback: BulkInsert

        init(importer: NotificationImporter) throws {
            self.importer = importer
            let db = importer.db
            var now = importer.clock ?? importer.importedAt
            if let at = importer.clockAtLeast { now = max(now, at) }
            self.now = now
            // Rows are appended (`id` is the rowid, never reused below the largest), so the rows this run
            // stores are those from here on, whatever lines were rolled back: a repeat of one of them names
            // its line from the row itself, and the import keeps nothing a line in memory.
            firstEventId = (try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM subscription_event") ?? 0) + 1
            stored = try db.cachedStatement(sql: "SELECT id, source_line FROM subscription_event WHERE notification_uuid = ?")
            insertEvent = try BulkInsert(
                db,
                cachedSQL: """
                    INSERT INTO subscription_event (notification_uuid, original_transaction_id, notification_type, subtype,
                      signed_date, transaction_id, product_id, provenance, root_sha256, root_subject, signer_subject,
                      signer_serial, payload, source, imported_at, source_line)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (notification_uuid) DO NOTHING
                    """)
            rows = try SubscriptionRowStatement(db)
            owners = try OwnerLookup(db)
            storedRow = try db.cachedStatement(
                sql: "SELECT user_id, app_id, product_id, time_rate_month_ms FROM subscription WHERE original_transaction_id = ?")
            events = try db.cachedStatement(
                sql: "SELECT \(SubscriptionEventRow.columns) FROM subscription_event WHERE original_transaction_id = ?")
            savepoint = try BulkInsert(db, cachedSQL: "SAVEPOINT notification_line")
            release = try BulkInsert(db, cachedSQL: "RELEASE notification_line")
            rollback = try BulkInsert(db, cachedSQL: "ROLLBACK TO notification_line")
            batchSavepoint = try BulkInsert(db, cachedSQL: "SAVEPOINT notification_batch")
            batchRelease = try BulkInsert(db, cachedSQL: "RELEASE notification_batch")
            batchRollback = try BulkInsert(db, cachedSQL: "ROLLBACK TO notification_batch")
        }

        /// Writes judged lines under one savepoint and returns their fates, in order; when the store
        /// refuses one of them, writes them again a line at a time (see the type's note). What the lines
        /// add to `report` is added only once they are in.
        mutating func write(
            batch: [NotificationImport.Judged], report: inout NotificationImport.Report
        ) throws -> [NotificationImport.Line] {
            guard !batch.isEmpty else { return [] }
            let nowBefore = now
            var added = NotificationImport.Report()
            var outcomes: [NotificationImport.Line] = []
            outcomes.reserveCapacity(batch.count)
            batchUndo = [:]
            try batchSavepoint.run { _ in }
            do {
                for judged in batch { outcomes.append(try write(judged, report: &added, alone: false)) }
                batchUndo = nil
                try batchRelease.run { _ in }
                report.add(added)
                return outcomes
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                try batchRollback.run { _ in }
                try batchRelease.run { _ in }
                owners.search.lineRolledBack()
                for (id, chain) in batchUndo ?? [:] {
                    _ = chains.take(id)
                    if let chain { chains.put(id, chain) }
                }
                batchUndo = nil
                now = nowBefore
                return try batch.map { try write($0, report: &report, alone: true) }
            } catch {
                batchUndo = nil
                throw error
            }
        }

        /// Writes one judged line (or says why not) and returns its fate. `alone`: in a savepoint of its
        /// own, a line the store refuses rolled back and rejected; else inside a batch's savepoint, where
        /// the store's refusal is thrown for the batch to be written again line by line.
        private mutating func write(
            _ judged: NotificationImport.Judged, report: inout NotificationImport.Report, alone: Bool
        ) throws -> NotificationImport.Line {
            var line: NotificationImport.Line, taken: NotificationImport.Judged.Taken
            switch try judged.step(repeated: repeated) {
            case .done(let done): return done
            case .take(let l, let t): (line, taken) = (l, t)
            }
            let (event, transaction, product, payload) = (taken.event, taken.transaction, taken.product, taken.payload)
            let chainId = transaction.originalTransactionId
            let lineNow = max(now, event.signedDate)
            if alone { try savepoint.run { _ in } }
            // The notification first: one already stored (in the store, or earlier in this file) changes
            // nothing, and is found without a lookup of its own.
            let inserted: Int32
            do {
                inserted = try insertEvent.run { bind in
                    bind.text(event.notificationUUID)
                    bind.text(chainId)
                    bind.text(event.notificationType.rawValue)
                    bind.text(event.subtype?.rawValue)
                    bind.int(event.signedDate.millis)
                    bind.text(transaction.transactionId)
                    bind.text(transaction.productId)
                    bind.text(event.provenance.rawValue)
                    bind.text(event.signer?.rootSHA256)
                    bind.text(event.signer?.rootSubject)
                    bind.text(event.signer?.leafSubject)
                    bind.text(event.signer?.leafSerial)
                    bind.text(payload)
                    bind.text(importer.source)
                    bind.int(importer.importedAt.millis)
                    bind.int(Int64(judged.line))
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT && alone {
                // The line's own values conflict with what the store holds: that line is refused, the rest go
                // on. Any other SQLite error (a table rebuilt without its key, a full disk, an I/O error) is the
                // store's, not the line's: it ends the import, rolled back whole, in one line naming the store.
                try rollback.run { _ in }
                owners.search.lineRolledBack()
                try release.run { _ in }
                line.outcome = .rejected("the store refused it: \(error.message ?? "\(error.resultCode)")")
                return line
            }
            guard inserted > 0 else {
                if alone { try release.run { _ in } }
                line.outcome = try repeated(event) ?? .skipped("notification \(event.notificationUUID) is already in the store")
                return line
            }
            if batchUndo != nil, batchUndo?.index(forKey: chainId) == nil { batchUndo?[chainId] = .some(chains.peek(chainId)) }
            let kept = chains.take(chainId)
            var readBack = false
            var chain: Chain
            if let kept {
                chain = kept
            } else {
                (chain, readBack) = try loadChain(chainId, first: event, at: lineNow)
            }
            let chainBefore = chain
            var created: String?
            do {
                let owner = try owners.owner(of: transaction, chain: &chain, created: &created)
                // A chain read back from the store already has this line's notification (inserted above)
                // folded in its place: appending it again found it "earlier than what was folded" and read
                // the chain back a second time.
                if !readBack, !chain.folding.append(event) {
                    // Earlier than what was folded: fold the chain again from everything stored, this one included.
                    chain.folding = ChainFolding(events: try SubscriptionEventRow.events(events, chain: chainId))
                }
                if let row = SubscriptionSettling.derive(
                    chainId, folding: chain.folding, owner: owner, product: product, rate: chain.rate, now: lineNow)
                {
                    try rows.save(row, stored: chain.stored)
                    chain.stored = .row(userId: row.userId, appId: row.appId, productId: row.productId)
                }
                if alone { try release.run { _ in } }
                line.userId = owner
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT && alone {
                // As above: a constraint refuses the line; the store's own failures end the import.
                // The chain goes back as it was before the line, as the store now holds it (and still
                // counted once when this run wrote its row before).
                chains.put(chainId, chainBefore)
                try rollback.run { _ in }
                owners.search.lineRolledBack()
                try release.run { _ in }
                line.outcome = .rejected("the store refused it: \(error.message ?? "\(error.resultCode)")")
                return line
            }
            now = lineNow
            if !chain.written {
                chain.written = true
                report.subscriptionsWritten += 1
            }
            if let created { report.recordNewUser(created) }
            report.provenance[event.provenance, default: 0] += 1
            chains.put(chainId, chain)
            return line
        }

        /// Why a notification already stored is skipped (a repeat of a line of this file, or in the store
        /// before); nil when it is not stored.
        private func repeated(_ event: SubscriptionEvent) throws -> NotificationImport.Outcome? {
            guard let row = try Row.fetchOne(stored, arguments: [event.notificationUUID]) else { return nil }
            let id: Int64 = try row.column("id")
            if id >= firstEventId, let first: Int = try row.column("source_line") {
                return .skipped("repeats notification \(event.notificationUUID) of line \(first)")
            }
            return .skipped("notification \(event.notificationUUID) is already in the store")
        }

        /// A chain as the store holds it: its notifications folded, its owner and rate (the one its row
        /// keeps, else the demo's, else real time). A chain with no row has no notifications either
        /// (`check` holds the store to that), so a new chain costs one lookup. `readBack` says whether its
        /// notifications were read from the store (all of them, the line's own if already inserted).
        ///
        /// A row with no notification but `first` (just inserted) is a chain the store kept without any:
        /// what it knew goes into the log first (`SubscriptionBaseline`), so `first` folds after it.
        private func loadChain(_ id: String, first: SubscriptionEvent, at now: Instant) throws -> (chain: Chain, readBack: Bool) {
            let row = try Row.fetchOne(storedRow, arguments: [id])
            if row != nil { try SubscriptionBaselineRows.record(db, chain: id, except: first.notificationUUID, at: now) }
            let kept: Int64? = row?["time_rate_month_ms"]
            let folding = row == nil ? ChainFolding(events: []) : ChainFolding(events: try SubscriptionEventRow.events(events, chain: id))
            var stored = SubscriptionRowStatement.Stored.none
            if let row { stored = .row(userId: try row.column("user_id"), appId: try row.column("app_id"), productId: try row.column("product_id")) }
            let chain = Chain(
                folding: folding, owner: NotificationImport.ChainOwner(owner: row?["user_id"]),
                rate: kept.map { TimeRate(realMillisPerMonth: $0) } ?? importer.timeRate ?? .realTime, written: false,
                stored: stored)
            return (chain, row != nil)
        }
    }

    /// Who a notification belongs to: the player whose game account holds its token, else the chain's
    /// owner, else whoever bought its original transaction here, else a new player named after it.
    struct OwnerLookup {
        let db: Database
        let byToken: Statement
        let byTransaction: Statement
        let userExists: Statement
        let insertUser: BulkInsert
        let search: DeferredUserSearch

        init(_ db: Database) throws {
            self.db = db
            search = try DeferredUserSearch(db)
            byToken = try db.cachedStatement(sql: "SELECT user_id FROM game_account WHERE app_account_token = ?")
            byTransaction = try db.cachedStatement(
                sql: "SELECT user_id FROM store_transaction WHERE original_transaction_id = ? ORDER BY purchase_date LIMIT 1")
            userExists = try db.cachedStatement(sql: "SELECT 1 FROM user WHERE id = ?")
            insertUser = try BulkInsert(
                db,
                cachedSQL: """
                    INSERT INTO user (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety,
                      client_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
        }

        func owner(of transaction: TransactionInfo, chain: inout Chain, created: inout String?) throws -> String {
            let found = try NotificationImport.owner(
                of: transaction, chain: &chain.owner, byToken: { try String.fetchOne(byToken, arguments: [$0]) },
                byTransaction: { try String.fetchOne(byTransaction, arguments: [$0]) })
            let id: String
            switch found {
            case .player(let owner): return owner
            case .newPlayer(let new): id = new
            }
            if try Bool.fetchOne(userExists, arguments: [id]) != nil { return id }
            let original = transaction.originalTransactionId
            let user = NotificationImport.newOwner(
                originalTransactionId: original, firstPurchase: transaction.originalPurchaseDate ?? transaction.purchaseDate)
            try search.beforeNewUser()
            try insertUser.insert { bind in
                bind.text(user.id)
                bind.text(user.name)
                bind.text(user.friendlyName)
                bind.text(user.idCard)
                bind.text(user.phone)
                bind.int(Int64(user.site.rawValue))
                bind.int(Int64(user.adultType.rawValue))
                bind.bool(user.fcm)
                bind.int(Int64(user.authorizState))
                bind.int(Int64(user.safety))
                bind.text(user.clientId)
                bind.int(user.createdAt.millis)
            }
            created = id
            return id
        }
    }
}

/// Writes a `subscription` row whole (inserting or replacing it) on cached statements.
///
/// The upsert is right whatever the store holds, but SQLite checks its foreign keys and opens a statement
/// journal for it every time (the `DO UPDATE` may change them): a third of a decoded import's writing.
/// When the writer knows the row is not there, a plain insert does; when it knows the row is there with the
/// same owner, app and product, an update of the other columns does, with no foreign key to check.
struct SubscriptionRowStatement {
    let upsert: BulkInsert
    let insert: BulkInsert
    let update: BulkInsert

    /// What the writer knows of a chain's stored row.
    enum Stored: Hashable {
        /// Not known: the upsert.
        case unknown
        /// No row.
        case none
        /// A row with these keys (its other columns may differ).
        case row(userId: String, appId: String, productId: String)
    }

    static let columns = """
        original_transaction_id, user_id, app_id, product_id, group_id, state, auto_renew,
          original_purchase_date, purchase_date, expires_date, grace_period_expires_date, revocation_date,
          revocation_reason, expiration_intent, offer_type, offer_id, time_rate_month_ms, apple_revocation_reason
        """

    init(_ db: Database) throws {
        insert = try BulkInsert(
            db,
            cachedSQL: "INSERT INTO subscription (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        // The same eighteen arguments as the inserts (the keys ?2, ?3 and ?4 bound but not used).
        update = try BulkInsert(
            db,
            cachedSQL: """
                UPDATE subscription SET group_id = ?5, state = ?6, auto_renew = ?7, original_purchase_date = ?8,
                  purchase_date = ?9, expires_date = ?10, grace_period_expires_date = ?11, revocation_date = ?12,
                  revocation_reason = ?13, expiration_intent = ?14, offer_type = ?15, offer_id = ?16,
                  time_rate_month_ms = ?17, apple_revocation_reason = ?18
                WHERE original_transaction_id = ?1
                """)
        upsert = try BulkInsert(
            db,
            cachedSQL: """
                INSERT INTO subscription (\(Self.columns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (original_transaction_id) DO UPDATE SET
                  user_id = excluded.user_id, app_id = excluded.app_id, product_id = excluded.product_id,
                  group_id = excluded.group_id, state = excluded.state, auto_renew = excluded.auto_renew,
                  original_purchase_date = excluded.original_purchase_date, purchase_date = excluded.purchase_date,
                  expires_date = excluded.expires_date, grace_period_expires_date = excluded.grace_period_expires_date,
                  revocation_date = excluded.revocation_date, revocation_reason = excluded.revocation_reason,
                  expiration_intent = excluded.expiration_intent, offer_type = excluded.offer_type,
                  offer_id = excluded.offer_id, time_rate_month_ms = excluded.time_rate_month_ms,
                  apple_revocation_reason = excluded.apple_revocation_reason
                """)
    }

    /// Writes `row`, by the statement what is `stored` allows.
    func save(_ row: Subscription, stored: Stored = .unknown) throws {
        switch stored {
        case .none: try insert.insert { Self.bind(row, &$0) }
        case .row(let userId, let appId, let productId)
        where userId == row.userId && appId == row.appId && productId == row.productId:
            if try update.run({ Self.bind(row, &$0) }) > 0 { return }
            // Not there after all: the upsert, as when nothing is known.
            try upsert.insert { Self.bind(row, &$0) }
        case .unknown, .row: try upsert.insert { Self.bind(row, &$0) }
        }
    }

    /// The row's eighteen columns, in `columns` order.
    private static func bind(_ row: Subscription, _ bind: inout BulkInsert.Binder) {
        bind.text(row.id)
        bind.text(row.userId)
        bind.text(row.appId)
        bind.text(row.productId)
        bind.text(row.groupId)
        bind.text(row.state.rawValue)
        bind.bool(row.autoRenew)
        bind.int(row.originalPurchaseDate.millis)
        bind.int(row.purchaseDate.millis)
        bind.int(row.expiresDate.millis)
        bind.int(row.gracePeriodExpiresDate?.millis)
        bind.int(row.revocationDate?.millis)
        bind.text(row.revocationReason)
        bind.text(row.expirationIntent)
        bind.text(row.offerType)
        bind.text(row.offerId)
        bind.int(row.timeRateMillisPerMonth)
        bind.int(row.appleRevocationReason.map(Int64.init))
    }
}

/// One `subscription_event` row read back: the notification as Apple's JSON, and how it was trusted.
enum SubscriptionEventRow {
    static let columns = "provenance, root_sha256, root_subject, signer_subject, signer_serial, payload, source"

    /// Whether a chain has notifications: they, not its row, say how it goes on.
    static func hasEvents(_ db: Database, originalTransactionId: String) throws -> Bool {
        try Int.fetchOne(
            db, sql: "SELECT 1 FROM subscription_event WHERE original_transaction_id = ? LIMIT 1",
            arguments: [originalTransactionId]) != nil
    }

    /// The notifications of these chains, decoded, with their provenance.
    static func events(_ db: Database, originalTransactionIds: [String]) throws -> [SubscriptionEvent] {
        guard !originalTransactionIds.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: originalTransactionIds.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(columns) FROM subscription_event WHERE original_transaction_id IN (\(marks)) ORDER BY id",
            arguments: StatementArguments(originalTransactionIds))
        return try rows.map(decode(row:))
    }

    /// One chain's notifications through a cached statement (`SELECT columns ... WHERE original_transaction_id = ?`).
    static func events(_ statement: Statement, chain: String) throws -> [SubscriptionEvent] {
        try Row.fetchAll(statement, arguments: [chain]).map(decode(row:))
    }

    static func decode(row: Row) throws -> SubscriptionEvent {
        // `column` throws where `row["…"]` traps: a store edited by hand can hold a number or a blob here.
        let provenance: String = try row.column("provenance")
        do {
            var event = try SubscriptionEvent.decode(jsonLine: try row.column("payload") as String)
            event.provenance = SubscriptionEvent.Provenance(rawValue: provenance) ?? .unverifiedJWS
            event.origin = SubscriptionEvent.Origin(source: try row.column("source"))
            if event.provenance == .verified, let root: String = try row.column("root_sha256") {
                event.signer = Signer(
                    rootSHA256: root, rootSubject: try row.column("root_subject") ?? "", leafSubject: try row.column("signer_subject") ?? "",
                    leafSerial: try row.column("signer_serial") ?? "")
            }
            return event
        } catch {
            throw StoreError.invalidArgument("a stored notification cannot be read back: \(error)")
        }
    }
}
