import StoreDeskCore

/// How an import runs, every backend's: lines judged (a simulation's decoded events here, a file's on every
/// core through `ParallelJudgement`), handed to the backend's writer in batches in file order, every fate
/// recorded and heard, and the refusal of a file in which no line is a notification. Only the writing is
/// each backend's.
extension NotificationImport {
    /// A simulation's events (already decoded and trusted), judged against the catalogue and clocks, in line order.
    public static func judged(
        _ decoded: SubscriptionEventLines, catalogue: Catalogue, clock: Instant, wallClock: Instant
    ) -> [Judged] {
        var judged = decoded.failures.map { Judged(line: $0.line, verdict: .unreadable($0.error.description)) }
        for entry in decoded.entries {
            judged.append(judge(line: entry.line, event: entry.event, catalogue: catalogue, clock: clock, wallClock: wallClock))
        }
        judged.sort { $0.line < $1.line }
        return judged
    }

    /// Streams `file`'s lines through `ParallelJudgement` (judged on every core with `trust`) into `write`;
    /// its errors name the file, and a file that cannot be read to the end is refused.
    package static func streamed(
        _ file: NotificationFile, trust: NotificationTrust, catalogue: Catalogue, clock: Instant, wallClock: Instant,
        write: (ParallelJudgement) throws -> Report
    ) throws -> Report {
        let judgement = ParallelJudgement(reader: file.reader) { line, text in
            judge(line: line, text: text[...], trust: trust, catalogue: catalogue, clock: clock, wallClock: wallClock)
        }
        let report: Report
        do {
            report = try write(judgement)
        } catch StoreError.dataFile(_, let message) {
            throw StoreError.dataFile(path: file.path, message: message)
        }
        if let failure = judgement.failure {
            throw StoreError.dataFile(path: file.path, message: "cannot be read to the end: \(failure)")
        }
        return report
    }

    /// Hands judged lines to `write` `batchSize` at a time, in order, and records each fate it returns
    /// (`each` hears it; `keepLines` keeps it in the report).
    ///
    /// - Throws: `StoreError.dataFile` naming `source` when no line at all was a notification (the caller's
    ///   transaction then rolls back: the store is untouched), and whatever `write` throws.
    public static func written(
        _ judged: some Sequence<Judged>, batchSize: Int, source: String, keepLines: Bool, each: (Line) -> Void,
        write: ([Judged], inout Report) throws -> [Line]
    ) throws -> Report {
        var report = Report()
        var firstUnreadable: (line: Int, reason: String)?
        var readable = 0
        var batch: [Judged] = []
        batch.reserveCapacity(batchSize)
        func flush() throws {
            for outcome in try write(batch, &report) {
                report.record(outcome, keep: keepLines)
                each(outcome)
            }
            batch.removeAll(keepingCapacity: true)
        }
        for line in judged {
            if case .unreadable(let reason) = line.verdict {
                if firstUnreadable == nil { firstUnreadable = (line.line, reason) }
            } else {
                readable += 1
            }
            batch.append(line)
            if batch.count == batchSize { try flush() }
        }
        try flush()
        if readable == 0, let firstUnreadable {
            throw StoreError.dataFile(
                path: source, message: "no line is an App Store notification (line \(firstUnreadable.line): \(firstUnreadable.reason))")
        }
        return report
    }
}

extension NotificationImport {
    /// Whom a chain's lines were last given to, and the token that named them.
    public struct ChainOwner: Sendable, Hashable {
        public var owner: String?
        public var token: String?

        public init(owner: String? = nil, token: String? = nil) {
            self.owner = owner
            self.token = token
        }
    }

    /// Who a notification belongs to, every backend's order: the player whose game account holds its token
    /// (`byToken`), else the chain's owner, else whoever bought its original transaction here
    /// (`byTransaction`), else a new player named after it (`.newPlayer`: the backend makes them unless
    /// they exist). `chain` remembers the answer for the chain's next line.
    public enum FoundOwner: Sendable, Equatable {
        case player(String)
        case newPlayer(String)
    }

    public static func owner(
        of transaction: TransactionInfo, chain: inout ChainOwner, byToken: (String) throws -> String?,
        byTransaction: (String) throws -> String?
    ) throws -> FoundOwner {
        if let token = transaction.appAccountToken?.lowercased() {
            if token == chain.token, let owner = chain.owner { return .player(owner) }
            if let user = try byToken(token) {
                chain = ChainOwner(owner: user, token: token)
                return .player(user)
            }
        }
        if let owner = chain.owner { return .player(owner) }
        if let user = try byTransaction(transaction.originalTransactionId) {
            chain.owner = user
            return .player(user)
        }
        let id = newOwnerId(transaction.originalTransactionId)
        chain.owner = id
        return .newPlayer(id)
    }
}
