import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The restore desk's reads and writes. Every write runs in one `BEGIN IMMEDIATE` transaction: the
/// write lock is taken before the prompt is read, so of two processes confirming one prompt the
/// second waits, then sees it confirmed and is refused. `restore_once` (one prompt per transaction)
/// and `order_on_transaction` / `grant_on_order` make a second delivery impossible even so.
extension AppDatabase {
    /// A player logged in: every dropped order of their Apple IDs' players gets a prompt (once), and
    /// the open prompts come back grouped per player.
    public func recordLogin(userId: String, at now: Instant) throws -> RestoreLogin {
        try writeImmediate { db in
            guard try User.exists(db, matching: "id", userId) else { throw StoreError.unknownUser(id: userId) }
            return try RestoreDesk.logIn(db, PlayerLogin(userId: userId, at: try StoreMeta.stamp(now, in: db)))
        }
    }

    /// Prompts oldest first, `status` nil for all, from after `cursor` (keyset: created_at, id).
    public func restorePrompts(status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?) throws
        -> [RestorePrompt]
    {
        try reader.read { db in
            try RestoreDesk.rows(
                db, RestoreQuery(status: status, environment: environment), anchor: cursor.map { .after($0) } ?? .first, limit: limit)
                .map { try RestoreDesk.prompt(db, $0.request) }
        }
    }

    /// One page of the desk's list in the query's order: its status (nil for all), its text found in the
    /// transaction id, the player's id or the product id.
    public func restoreRows(_ query: RestoreQuery, anchor: PageAnchor<RestoreCursor>, limit: Int) throws -> [RestoreRow] {
        try reader.read { db in try RestoreDesk.rows(db, query, anchor: anchor, limit: limit) }
    }

    /// The prompt for one transaction, whatever its status.
    public func restorePrompt(transactionId: String) throws -> RestorePrompt? {
        try reader.read { db in try RestoreDesk.request(db, transactionId).map { try RestoreDesk.prompt(db, $0) } }
    }

    /// How many prompts have each status.
    public func restoreCounts() throws -> [RestoreStatus: Int] {
        try reader.read { db in
            var counts: [RestoreStatus: Int] = [:]
            for status in RestoreStatus.allCases {
                counts[status] = try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM restore_request WHERE status = ?", arguments: [status.rawValue])
            }
            return counts
        }
    }

    /// How many prompts of each status are of Sandbox purchases.
    public func sandboxRestoreCounts() throws -> [RestoreStatus: Int] {
        try reader.read { db in
            var counts: [RestoreStatus: Int] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.status, COUNT(*) AS n FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
                    WHERE t.environment = ? GROUP BY r.status
                    """, arguments: [StoreEnvironment.sandbox.rawValue])
            for row in rows {
                if let status = RestoreStatus(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }

    /// Support confirms a prompt onto `target`: the order, the signed callback, the grant, the finished
    /// transaction, the events, the audit line and the confirmed prompt, in one transaction.
    /// Throws `RestoreRefusal` (nothing written) when the rules refuse.
    @discardableResult
    public func confirmRestore(transactionId: String, onto target: RestoreAccount, by staff: StaffMember, at now: Instant)
        throws -> RestorePrompt
    {
        try writeImmediate { db in
            guard let request = try RestoreDesk.request(db, transactionId) else {
                throw RestoreRefusal.unknownTransaction(transactionId)
            }
            let now = try StoreMeta.stamp(now, in: db)
            let prompt = try RestoreDesk.prompt(db, request)
            var numbers = try PaymentRuns.restoreDesk(db, needing: 1, now: now, path: path)
            guard let orderId = numbers.next() else {
                throw StoreError.database(path: path, message: "the restore desk's block of order numbers is used up")
            }
            let result = RestoreRules.confirm(
                prompt, onto: target, by: staff, products: try RestoreDesk.products(db, appId: prompt.app.id),
                orderId: orderId, at: now)
            switch result {
            case .success(let decision):
                try RestoreDesk.commit(decision, db)
                try PaymentRuns.save(numbers, db)
                return try RestoreDesk.prompt(db, decision.request)
            case .failure(.notOnAppleID(let account, _, _)) where !(try User.exists(db, matching: "id", account)):
                throw RestoreRefusal.unknownAccount(account)
            case .failure(let refusal):
                throw refusal
            }
        }
    }

    /// Support declines a prompt with a reason; audited. The transaction stays unfinished.
    @discardableResult
    public func declineRestore(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws
        -> RestorePrompt
    {
        try writeImmediate { db in
            guard let request = try RestoreDesk.request(db, transactionId) else {
                throw RestoreRefusal.unknownTransaction(transactionId)
            }
            let now = try StoreMeta.stamp(now, in: db)
            switch RestoreRules.decline(try RestoreDesk.prompt(db, request), reason: reason, by: staff, at: now) {
            case .success(let decision):
                try RestoreDesk.commit(decision, db)
                return try RestoreDesk.prompt(db, decision.request)
            case .failure(let refusal):
                throw refusal
            }
        }
    }

    /// Restore Purchases for one role: its Apple ID's past non-consumables and subscriptions in its app
    /// come back as `restored` and unlock without a new charge, as the app's ownership rule allows.
    public func restorePurchases(for target: RestoreAccount, appId: String? = nil, by staff: StaffMember, at now: Instant)
        throws -> RestorePurchases.Plan
    {
        try writeImmediate { db in
            guard try User.exists(db, matching: "id", target.userId) else { throw RestoreRefusal.unknownAccount(target.userId) }
            let now = try StoreMeta.stamp(now, in: db)
            let roles = try GameAccount.fetchAll(
                db, sql: "SELECT * FROM game_account WHERE user_id = ? ORDER BY app_id, sid, role_id",
                arguments: [target.userId])
            let account = try RestorePurchases.account(for: target, appId: appId, roles: roles)
            guard let app = try App.fetchOne(db, matching: "id", account.appId) else { throw RestorePurchases.missingApp(of: account) }
            let purchases = try RestoreDesk.pastPurchases(db, appleId: account.appleId, app: app)
            let numbers = try PaymentRuns.restoreDesk(db, needing: purchases.count, now: now, path: path)
            let result = RestorePurchases.plan(
                for: RestoreAccount(account), app: app, purchases: purchases,
                products: try RestoreDesk.products(db, appId: app.id), orderNumbers: numbers, by: staff, at: now)
            switch result {
            case .success(let plan):
                let rows = try PaymentRowWriter(db)
                for item in plan.items { if let change = item.change { try rows.write(change) } }
                try PaymentRuns.save(plan.orderNumbers, db)
                var audit = plan.audit
                try audit.insert(db)
                return plan
            case .failure(let refusal):
                throw refusal
            }
        }
    }

    /// Audit lines newest first, one page. `action` matches exactly or as a family (`restore` matches
    /// `restore.confirm`); `actor` matches exactly; `text` anywhere in the actor, action, subject or
    /// detail, ignoring case.
    public func auditEntries(
        action: String? = nil, actor: String? = nil, text: String? = nil, oldestFirst: Bool = false, anchor: KeysetAnchor = .first,
        limit: Int
    ) throws -> [AuditEntry] {
        try reader.read { db in
            var conditions: [(String, StatementArguments)] = []
            if let action { conditions.append(("action >= ? AND action < ?", [action, action + "/"])) }
            if let actor { conditions.append(("actor = ?", [actor])) }
            if let text, !text.isEmpty {
                conditions.append(("instr(lower(actor || ' ' || action || ' ' || subject || ' ' || detail), lower(?)) > 0", [text]))
            }
            // By `id` alone: the store-wide sequence of audit lines, which cannot tie or go back, whatever
            // instant each line was stamped at.
            return try Keyset(time: nil, id: "id", descending: !oldestFirst).page(
                db, select: "SELECT * FROM audit_log", conditions: conditions, anchor: anchor, limit: limit)
        }
    }

    /// A write in one `BEGIN IMMEDIATE` transaction, refused up front on a read-only store.
    func writeImmediate<T>(_ body: (Database) throws -> T) throws -> T {
        guard !isReadOnly else { throw RestoreRefusal.readOnly }
        do {
            return try writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                do {
                    let value = try body(db)
                    try db.execute(sql: "COMMIT")
                    return value
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        } catch let error as DatabaseError {
            throw StoreError(error, path: path)
        }
    }
}

extension RestoreRow: FetchableRecord {
    public init(row: GRDB.Row) throws {
        self.init(
            request: try RestoreRequest(row: row), appId: try row.decode(forColumn: "sd_app_id"),
            environment: StoreEnvironment(rawValue: try row.decode(forColumn: "sd_environment")) ?? .production)
    }
}

/// The SQL behind the desk, shared by the named methods above and the simulator's logins.
enum RestoreDesk {
    static func request(_ db: Database, _ transactionId: String) throws -> RestoreRequest? {
        try RestoreRequest.fetchOne(
            db, sql: "SELECT * FROM restore_request WHERE transaction_id = ?", arguments: [transactionId])
    }

    /// One page of the list: each order a keyset over its index (`(created_at, id)`, `(user_id, id)`, the
    /// transaction id, each led by the status when the query has one), either way; never OFFSET.
    static func rows(_ db: Database, _ query: RestoreQuery, anchor: PageAnchor<RestoreCursor>, limit: Int) throws -> [RestoreRow] {
        let (sql, arguments, reversed) = statement(query, anchor: anchor, limit: limit)
        let rows = try RestoreRow.fetchAll(db, sql: sql, arguments: arguments)
        return reversed ? rows.reversed() : rows
    }

    /// The statement of one page (`rows`), and whether its rows come back reversed.
    static func statement(_ query: RestoreQuery, anchor: PageAnchor<RestoreCursor>, limit: Int)
        -> (sql: String, arguments: StatementArguments, reversed: Bool)
    {
        var conditions: [(String, StatementArguments)] = []
        if let status = query.status { conditions.append(("r.status = ?", [status.rawValue])) }
        if !query.text.isEmpty { conditions.append(textCondition(query.text)) }
        if let environment = query.environment { conditions.append(environmentCondition(environment)) }
        let keyset: Keyset
        let values: (RestoreCursor) -> StatementArguments
        switch query.order {
        case .prompted: (keyset, values) = (Keyset(time: "r.created_at", id: "r.id", descending: query.descending), { [$0.createdAt.millis, $0.id] })
        case .player: (keyset, values) = (Keyset(time: "r.user_id", id: "r.id", descending: query.descending), { [$0.userId, $0.id] })
        case .transaction: (keyset, values) = (Keyset(time: nil, id: "r.transaction_id", descending: query.descending), { [$0.transactionId] })
        }
        return keyset.statement(
            select: "SELECT r.*, t.app_id AS sd_app_id, t.environment AS sd_environment FROM \(joined)",
            conditions: conditions, anchor: anchor, limit: limit, values: values)
    }

    /// The prompts and their transactions, as the list reads them (`r`, `t`).
    static let joined = "restore_request r JOIN store_transaction t ON t.id = r.transaction_id"

    /// The environment filter: prompts of purchases made in `environment`.
    static func environmentCondition(_ environment: StoreEnvironment) -> (String, StatementArguments) {
        ("t.environment = ?", [environment.rawValue])
    }

    /// The text filter: found (as typed) in the transaction id, the player's id or the product id.
    static func textCondition(_ text: String) -> (String, StatementArguments) {
        ("instr(r.transaction_id || ' ' || r.user_id || ' ' || r.product_id, ?) > 0", [text])
    }

    static func products(_ db: Database, appId: String) throws -> [Product] {
        try Product.fetchAll(db, sql: "SELECT * FROM product WHERE app_id = ? ORDER BY id", arguments: [appId])
    }

    /// The Apple IDs a player plays from.
    static func appleIds(_ db: Database, userId: String) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT DISTINCT apple_id FROM game_account WHERE user_id = ? ORDER BY apple_id", arguments: [userId])
    }

    /// Every player with a game account on one of these Apple IDs.
    static func players(_ db: Database, appleIds: [String]) throws -> [String] {
        try String.fetchAll(
            db,
            sql: """
                SELECT DISTINCT user_id FROM game_account WHERE apple_id IN (\(databaseQuestionMarks(count: appleIds.count)))
                ORDER BY user_id
                """, arguments: StatementArguments(appleIds))
    }

    /// Opens prompts as `openPrompts` does and returns every open prompt of the players it looked at.
    static func logIn(_ db: Database, _ login: PlayerLogin) throws -> RestoreLogin {
        let (appleIds, players, opened) = try openPrompts(db, login)
        let open = try RestoreRequest.fetchAll(
            db,
            sql: """
                SELECT * FROM restore_request
                WHERE status = 'open' AND user_id IN (\(databaseQuestionMarks(count: players.count)))
                ORDER BY created_at, id
                """, arguments: StatementArguments(players))
        return RestoreLogin(
            userId: login.userId, appleIds: appleIds, prompts: try open.map { try prompt(db, $0) }, opened: opened)
    }

    /// Opens a prompt, with its event, for each dropped order of the players on the Apple IDs
    /// `login.userId` plays from that has none yet. A simulated transaction counts as dropped only
    /// once its client crashed: one still in flight (its run was killed between the payment and the
    /// order) is the payment queue's to resume.
    static func openPrompts(_ db: Database, _ login: PlayerLogin) throws -> (
        appleIds: [String], players: [String], opened: Set<Int64>
    ) {
        let appleIds = try appleIds(db, userId: login.userId)
        let players = Set(try players(db, appleIds: appleIds)).union([login.userId]).sorted()
        var opened: Set<Int64> = []
        for player in players {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.*,
                      EXISTS (SELECT 1 FROM payment_order o WHERE o.transaction_id = t.id) AS sd_has_order,
                      EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id) AS sd_has_prompt
                    FROM store_transaction t
                    WHERE t.user_id = ? AND t.state = 'purchased' AND t.finished = 0
                      AND (NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id)
                           OR EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed'))
                    ORDER BY t.purchase_date, t.id
                    """, arguments: [player])
            for row in rows where !(try row.decode(Bool.self, forColumn: "sd_has_prompt")) {
                let transaction = try StoreTransaction(row: row)
                guard RestoreRules.comesBack(transaction, hasOrder: try row.decode(forColumn: "sd_has_order")) else { continue }
                let (prompted, event) = RestoreRules.prompt(for: transaction, loggedIn: login.userId, at: login.at)
                var request = prompted
                try request.insert(db)
                if let id = request.id { opened.insert(id) }
                try event.insert(db)
            }
        }
        return (appleIds, players, opened)
    }

    /// A prompt with its transaction, product, app, candidate accounts and (once confirmed) delivery.
    static func prompt(_ db: Database, _ request: RestoreRequest) throws -> RestorePrompt {
        guard let transaction = try StoreTransaction.fetchOne(db, matching: "id", request.transactionId),
            let product = try Product.fetchOne(db, matching: "id", transaction.productId),
            let app = try App.fetchOne(db, matching: "id", transaction.appId)
        else {
            throw StoreError.invalidArgument(
                "restore prompt \(request.id ?? 0) names transaction \(request.transactionId), which is missing or incomplete")
        }
        var accounts = try GameAccount.fetchAll(
            db, sql: "SELECT * FROM game_account WHERE user_id = ?", arguments: [transaction.userId])
        let appleIds = Set(accounts.map(\.appleId)).sorted()
        accounts += try GameAccount.fetchAll(
            db,
            sql: """
                SELECT * FROM game_account
                WHERE apple_id IN (\(databaseQuestionMarks(count: appleIds.count))) AND app_id = ? AND user_id != ?
                """,
            arguments: StatementArguments(appleIds) + [transaction.appId, transaction.userId])
        var delivery: RestoreDelivery?
        if let order = try PaymentOrder.fetchOne(
            db, sql: "SELECT * FROM payment_order WHERE transaction_id = ?", arguments: [transaction.id])
        {
            delivery = RestoreDelivery(
                order: order,
                callback: try CallbackAttempt.fetchOne(
                    db, sql: "SELECT * FROM server_callback WHERE verdict = 'accepted' AND order_id = ? ORDER BY id LIMIT 1",
                    arguments: [order.id]),
                grant: try Grant.fetchOne(db, sql: "SELECT * FROM item_grant WHERE order_id = ?", arguments: [order.id]))
        }
        return RestorePrompt(
            request: request, transaction: transaction, product: product, app: app, accounts: accounts,
            delivery: delivery)
    }

    /// The Apple ID's past non-consumable and auto-renewable purchases in the app, each with its newest
    /// transaction and the accounts it was granted to.
    static func pastPurchases(_ db: Database, appleId: String, app: App) throws -> [RestorePurchases.PastPurchase] {
        let players = try players(db, appleIds: [appleId])
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT t.* FROM store_transaction t JOIN product p ON p.id = t.product_id
                WHERE t.user_id IN (\(databaseQuestionMarks(count: players.count))) AND t.app_id = ?
                  AND t.state IN ('purchased', 'restored') AND t.finished = 1
                  AND p.type IN ('non_consumable', 'auto_renewable')
                ORDER BY t.purchase_date, t.id
                """, arguments: StatementArguments(players) + [app.id])
        let newest = try RestorePurchases.newestByOriginal(rows.map(StoreTransaction.init(row:)))
        return try newest.compactMap { newest in
            let original = newest.originalTransactionId
            guard let product = try Product.fetchOne(db, matching: "id", newest.productId) else { return nil }
            let holders = try Row.fetchAll(
                db,
                sql: """
                    SELECT g.user_id, g.sid, g.role_id FROM store_transaction t
                    JOIN payment_order o ON o.transaction_id = t.id JOIN item_grant g ON g.order_id = o.order_id
                    WHERE t.original_transaction_id = ? ORDER BY g.granted_at, g.id
                    """, arguments: [original]
            ).map { RestoreAccount(userId: $0[0], sid: $0[1], roleId: $0[2]) }
            let count = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM store_transaction WHERE original_transaction_id = ?", arguments: [original]) ?? 0
            return RestorePurchases.PastPurchase(latest: newest, product: product, holders: holders, transactionCount: count)
        }
    }

    /// Writes a decision: its rows and events, the prompt as it became, and the audit line.
    static func commit(_ decision: RestoreDecision, _ db: Database) throws {
        try PaymentRowWriter(db).write(decision.change)
        try decision.request.update(db)
        var audit = decision.audit
        try audit.insert(db)
    }
}
