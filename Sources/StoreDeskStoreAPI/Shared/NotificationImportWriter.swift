import StoreDeskCore

/// The one notification importer, every backend's: one import's clocks and catalogue (`Run`), and the
/// writer that takes its judged lines into the store in file order (`Writer`), over the few statements a
/// backend gives (`Rows`: on SQLite cached statements, on PostgreSQL its session's).
///
/// Lines arrive already judged (decoded, signatures verified, checked against the catalogue and the
/// clocks: `NotificationImport.judge`, on every core, by `ParallelJudgement`); this only finds owners and
/// writes. What it remembers is bounded: the chains it touched recently (their folded state and owner, so a
/// chain's next line folds without reading the store again), nothing a line: a repeat of an earlier line is
/// found in the store, whose row names its `source_line`. So a file of any length keeps memory flat.
///
/// A notification belongs to the player whose game account carries its `appAccountToken`, else to whoever
/// already owns its chain, else to whoever bought its original transaction here, else to a new player named
/// after it. The chain's row is folded again from its notifications by their own dates
/// (`SubscriptionSettling.derive`). A store that keeps a clock sees time pass with what it imports: its
/// clock moves up to the latest signedDate taken in, and the rows it leaves behind are settled there.
extension NotificationImport {
    /// What the importer needs of a backend's transaction, one statement each.
    public protocol Rows {
        /// Readies the backend for the import's writes (on PostgreSQL, holds the notification log) and
        /// returns the largest id of a stored notification (0 when none).
        func beginWriting() throws -> Int64
        /// The store's reason when `error` is its refusal of a line's own values (a constraint); nil for any
        /// other error (a table rebuilt without its key, a full disk), which is the store's and ends the import.
        func refusal(_ error: any Error) -> String?
        func run(_ savepoint: Savepoint) throws
        /// Stores a notification; false (nothing written) when one with its UUID is stored already.
        func insert(_ taken: Judged.Taken, line: Int, source: String, importedAt: Instant) throws -> Bool
        /// The stored notification with this UUID: its id and the line of its file.
        func storedEvent(uuid: String) throws -> (id: Int64, sourceLine: Int64?)?
        /// The chain's `subscription` row, as far as the importer needs it.
        func storedChain(_ id: String) throws -> StoredChain?
        /// The chain's stored notifications (the fold puts them in their order).
        func events(chain: String) throws -> [SubscriptionEvent]
        /// Keeps what the store knew of a chain without notifications (`SubscriptionBaseline`), all but `uuid`.
        func recordBaseline(chain: String, except uuid: String, at now: Instant) throws
        /// Writes a chain's row whole; `stored` says what the writer knows of the row there.
        func save(_ row: Subscription, stored: StoredRow) throws
        /// The player whose game account carries this token (the first such account).
        func owner(byToken token: String) throws -> String?
        /// Whoever bought this original transaction here first.
        func owner(byTransaction originalTransactionId: String) throws -> String?
        func userExists(_ id: String) throws -> Bool
        func insert(newUser: User) throws
        /// After the last line, before the clock moves.
        func finishWriting() throws
        /// Moves the store's own clock up to `instant`, settling the rows it leaves behind.
        func moveClock(to instant: Instant) throws
        /// Moves a store without a clock of its own up to `instant` (its latest stamp).
        func advanceStamp(to instant: Instant) throws
    }

    /// The savepoints a writer opens: a batch of lines under one, or a line under one of its own. `undo`
    /// rolls back to the savepoint and releases it.
    public enum Savepoint: Sendable {
        case beginBatch, releaseBatch, undoBatch, beginLine, releaseLine, undoLine
    }

    /// A chain's stored row, as the importer needs it.
    public struct StoredChain: Sendable {
        public var userId: String, appId: String, productId: String
        /// The rate its demo ran it at, when it keeps one.
        public var rate: TimeRate?

        public init(userId: String, appId: String, productId: String, rate: TimeRate?) {
            (self.userId, self.appId, self.productId, self.rate) = (userId, appId, productId, rate)
        }
    }

    /// What the writer knows of a chain's stored row (so a backend can write it by the cheapest statement:
    /// a plain insert where there is none, an update where its keys stay).
    public enum StoredRow: Sendable, Hashable {
        /// Not known: the upsert.
        case unknown
        /// No row.
        case none
        /// A row with these keys (its other columns may differ).
        case row(userId: String, appId: String, productId: String)
    }

    /// One import: where its lines come from, its clocks and the catalogue they are judged against.
    public struct Run<R: Rows> {
        public let rows: R
        /// Where the lines came from, kept with each notification (`notifications.jsonl`).
        public let source: String
        /// The stamp its notifications' `imported_at` take: an instant on the store's time line, never
        /// before anything already written and never after the store's clock, which reaches it when the
        /// import took something in.
        public let importedAt: Instant
        /// The real time the import ran at: a notification signed after both it and the store's clock is
        /// "signed in the future". Never a stamp.
        public let wallClock: Instant
        /// The rate a demo drives its chains at, kept on the rows it makes; nil for real notifications (and
        /// a chain keeps the rate it already has).
        public let timeRate: TimeRate?
        /// Where a demo's run ended: the store's clock moves at least that far, even past the last
        /// notification it signed.
        public let clockAtLeast: Instant?
        /// The store's clock before the import (nil when it keeps none).
        public let clock: Instant?
        /// The apps and products, read once.
        public let catalogue: Catalogue

        public init(
            rows: R, source: String, importedAt: Instant, wallClock: Instant, timeRate: TimeRate?, clockAtLeast: Instant?,
            clock: Instant?, catalogue: Catalogue
        ) {
            (self.rows, self.source, self.importedAt, self.wallClock) = (rows, source, importedAt, wallClock)
            (self.timeRate, self.clockAtLeast, self.clock, self.catalogue) = (timeRate, clockAtLeast, clock, catalogue)
        }

        /// What a notification signed after is judged against, with the wall clock: the store's clock, or in
        /// a store without one its instant (the wall clock, never before its latest stamp).
        public var judgingClock: Instant { clock ?? importedAt }

        /// Events already decoded and trusted (a simulation's), judged here against the catalogue and clocks,
        /// each line kept in the report.
        public func run(_ decoded: SubscriptionEventLines) throws -> Report {
            try run(judged(decoded, catalogue: catalogue, clock: judgingClock, wallClock: wallClock), keepLines: true)
        }

        /// Streams a file's lines through `ParallelJudgement` (judged on every core with `trust`) and writes
        /// them in order.
        public func run(_ file: NotificationFile, trust: NotificationTrust, keepLines: Bool = false, each: (Line) -> Void = { _ in })
            throws -> Report
        {
            try streamed(file, trust: trust, catalogue: catalogue, clock: judgingClock, wallClock: wallClock) {
                try run($0, keepLines: keepLines, each: each)
            }
        }

        /// Writes judged lines in order, `Writer.batchSize` under one savepoint (`NotificationImport.written`).
        /// `each` hears every line's fate as it is decided; `keepLines` also keeps them in the report.
        ///
        /// - Throws: `StoreError.dataFile` when no line at all was a notification (the caller's transaction
        ///   then rolls back: the store is untouched), and any error writing the store.
        public func run(_ judged: some Sequence<Judged>, keepLines: Bool, each: (Line) -> Void = { _ in }) throws -> Report {
            var writer = try Writer(self)
            let report = try written(judged, batchSize: Writer<R>.batchSize, source: source, keepLines: keepLines, each: each) {
                batch, report in try writer.write(batch: batch, report: &report)
            }
            try rows.finishWriting()
            // The time line reaches what the run wrote: its stamp, once a notification carries it, and in a
            // store with a clock of its own the latest signedDate taken in, where the rows are settled.
            let reached = report.imported > 0 ? max(writer.now, importedAt) : writer.now
            if let clock, reached > clock {
                try rows.moveClock(to: reached)
            } else if clock == nil, report.imported > 0 {
                try rows.advanceStamp(to: importedAt)
            }
            return report
        }
    }

    /// What one chain's lines need from the lines before them, so the next one folds without reading the
    /// store: the chain folded so far (its state, not its notifications), its owner (and the token that
    /// named it) and rate. (Its product comes with each line.)
    struct Chain {
        var folding: ChainFolding
        var owner: ChainOwner
        var rate: TimeRate
        /// Whether this run already wrote the chain's row (it is counted once).
        var written: Bool
        var stored: StoredRow
    }

    /// The chains touched lately, in two generations: a chain used again moves to the newer one, and the
    /// older one is dropped when the newer fills. Bounded, whatever the file's size or order: at most
    /// 2 × `generation` chains, each about a kilobyte (its folded state in a box of its own, so a
    /// generation's table holds references, not the state's several hundred bytes a slot).
    ///
    /// A chain kept lives between one and two generations of lines. A year of history in date order has a
    /// chain's next line a month of lines later (8,300 lines in 100,000): with 8,192 a generation about half
    /// the chains were dropped before their next line and read back (their notifications decoded again on
    /// the writer thread), and the import of 100,000 lines ran at half the rate of 10,000. A larger file has
    /// more chains open at once than any fixed bound: those are read back from the store.
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

    /// The writes of one import, and the state that runs from line to line.
    ///
    /// Lines are written `batchSize` at a time under one savepoint: a savepoint per line copied every page a
    /// line touched into SQLite's statement journal, line after line, and that copying was most of a decoded
    /// import's writing. When the store refuses any line of a batch (a constraint), the batch is rolled back
    /// whole, the writer's state put back as it was before it, and its lines written again one savepoint
    /// each, so the refused line is rejected with the store's reason and the others still go in.
    struct Writer<R: Rows> {
        /// Lines under one savepoint: a few hundred keep the journal of the pages they touch a few MB.
        static var batchSize: Int { 256 }
        let run: Run<R>
        var rows: R { run.rows }
        /// The store's now: its clock (or the importer's stamp) moved up to each notification taken in.
        private(set) var now: Instant
        private var chains = RecentChains()
        /// While a batch is written under one savepoint: each chain it touched as it was before the batch
        /// (nil when it was not in memory), to put back if the batch rolls back.
        private var batchUndo: [String: Chain?]?
        /// The id the first notification this run stores gets: a notification already stored with an id from
        /// here on came from an earlier line of this run, which its `source_line` names. (Ids only grow, so
        /// this holds whatever lines were rolled back, and the import keeps nothing a line in memory.)
        private let firstEventId: Int64

        init(_ run: Run<R>) throws {
            self.run = run
            var now = run.clock ?? run.importedAt
            if let at = run.clockAtLeast { now = max(now, at) }
            self.now = now
            firstEventId = try run.rows.beginWriting() + 1
        }

        /// Writes judged lines under one savepoint and returns their fates, in order; when the store refuses
        /// one of them, writes them again a line at a time (see the type's note). What the lines add to
        /// `report` is added only once they are in.
        mutating func write(batch: [Judged], report: inout Report) throws -> [Line] {
            guard !batch.isEmpty else { return [] }
            let nowBefore = now
            var added = Report()
            var outcomes: [Line] = []
            outcomes.reserveCapacity(batch.count)
            batchUndo = [:]
            try rows.run(.beginBatch)
            do {
                for judged in batch { outcomes.append(try write(judged, report: &added, alone: false)) }
                batchUndo = nil
                try rows.run(.releaseBatch)
                report.add(added)
                return outcomes
            } catch where rows.refusal(error) != nil {
                try rows.run(.undoBatch)
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

        /// Writes one judged line (or says why not) and returns its fate. `alone`: in a savepoint of its own,
        /// a line the store refuses rolled back and rejected; else inside a batch's savepoint, where the
        /// store's refusal is thrown for the batch to be written again line by line.
        private mutating func write(_ judged: Judged, report: inout Report, alone: Bool) throws -> Line {
            var line: Line, taken: Judged.Taken
            switch try judged.step(repeated: repeated) {
            case .done(let done): return done
            case .take(let l, let t): (line, taken) = (l, t)
            }
            let (event, transaction) = (taken.event, taken.transaction)
            let chainId = transaction.originalTransactionId
            let lineNow = max(now, event.signedDate)
            if alone { try rows.run(.beginLine) }
            let cachedBefore = alone ? chains.peek(chainId) : nil
            do {
                // The notification first: one already stored (in the store, or earlier in this file) changes
                // nothing, and is found without a lookup of its own.
                guard try rows.insert(taken, line: judged.line, source: run.source, importedAt: run.importedAt) else {
                    if alone { try rows.run(.releaseLine) }
                    line.outcome = try repeated(event) ?? .skipped("notification \(event.notificationUUID) is already in the store")
                    return line
                }
                if batchUndo != nil, batchUndo?.index(forKey: chainId) == nil { batchUndo?[chainId] = .some(chains.peek(chainId)) }
                var chain: Chain, readBack = false
                if let kept = chains.take(chainId) {
                    chain = kept
                } else {
                    (chain, readBack) = try loadChain(chainId, first: event, at: lineNow)
                }
                var created: String?
                let owner = try owner(of: transaction, chain: &chain, created: &created)
                // A chain read back from the store already has this line's notification (inserted above)
                // folded in its place; one folded earlier than what was folded is folded again from
                // everything stored, this one included.
                if !readBack, !chain.folding.append(event) {
                    chain.folding = ChainFolding(events: try rows.events(chain: chainId))
                }
                if let row = SubscriptionSettling.derive(
                    chainId, folding: chain.folding, owner: owner, product: taken.product, rate: chain.rate, now: lineNow)
                {
                    try rows.save(row, stored: chain.stored)
                    chain.stored = .row(userId: row.userId, appId: row.appId, productId: row.productId)
                }
                if alone { try rows.run(.releaseLine) }
                line.userId = owner
                now = lineNow
                if !chain.written {
                    chain.written = true
                    report.subscriptionsWritten += 1
                }
                if let created { report.recordNewUser(created) }
                report.provenance[event.provenance, default: 0] += 1
                chains.put(chainId, chain)
                return line
            } catch where alone && rows.refusal(error) != nil {
                // The line's own values conflict with what the store holds: that line is refused, the rest go
                // on, and its chain stays as the store now holds it (as it was before the line).
                try rows.run(.undoLine)
                _ = chains.take(chainId)
                if let cachedBefore { chains.put(chainId, cachedBefore) }
                line.outcome = .rejected("the store refused it: \(rows.refusal(error) ?? "a constraint")")
                return line
            }
        }

        /// Why a notification already stored is skipped (a repeat of a line of this file, or in the store
        /// before); nil when it is not stored.
        private func repeated(_ event: SubscriptionEvent) throws -> Outcome? {
            guard let stored = try rows.storedEvent(uuid: event.notificationUUID) else { return nil }
            if stored.id >= firstEventId, let first = stored.sourceLine {
                return .skipped("repeats notification \(event.notificationUUID) of line \(first)")
            }
            return .skipped("notification \(event.notificationUUID) is already in the store")
        }

        /// A chain as the store holds it: its notifications folded (this line's, just inserted, included), its
        /// owner and rate (the one its row keeps, else the demo's, else real time). A chain with no row has no
        /// notifications either (`check` holds the store to that), so a new chain costs one lookup.
        /// `readBack` says whether its notifications were read from the store.
        ///
        /// A row with no notification but `first` is a chain the store kept without any: what it knew goes
        /// into the log first (`SubscriptionBaseline`), so `first` folds after it.
        private func loadChain(_ id: String, first: SubscriptionEvent, at now: Instant) throws -> (chain: Chain, readBack: Bool) {
            guard let row = try rows.storedChain(id) else {
                let chain = Chain(folding: ChainFolding(events: []), owner: ChainOwner(), rate: run.timeRate ?? .realTime, written: false, stored: .none)
                return (chain, false)
            }
            try rows.recordBaseline(chain: id, except: first.notificationUUID, at: now)
            let chain = Chain(
                folding: ChainFolding(events: try rows.events(chain: id)), owner: ChainOwner(owner: row.userId),
                rate: row.rate ?? run.timeRate ?? .realTime, written: false,
                stored: .row(userId: row.userId, appId: row.appId, productId: row.productId))
            return (chain, true)
        }

        /// Who a notification belongs to (see `NotificationImport.owner`); a new player is made when nobody does.
        private func owner(of transaction: TransactionInfo, chain: inout Chain, created: inout String?) throws -> String {
            let found = try NotificationImport.owner(
                of: transaction, chain: &chain.owner, byToken: rows.owner(byToken:), byTransaction: rows.owner(byTransaction:))
            let id: String
            switch found {
            case .player(let owner): return owner
            case .newPlayer(let new): id = new
            }
            if try rows.userExists(id) { return id }
            try rows.insert(
                newUser: NotificationImport.newOwner(
                    originalTransactionId: transaction.originalTransactionId,
                    firstPurchase: transaction.originalPurchaseDate ?? transaction.purchaseDate))
            created = id
            return id
        }
    }
}
