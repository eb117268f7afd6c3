import StoreDeskCore

/// The restore desk's reads and writes, written once for both backends over their transaction
/// (`StoreSQLTransaction`). Core's `RestoreRules` decide; this reads what they decide on and writes what
/// they decided, in one order. The caller runs each write in its backend's write transaction, which makes
/// two confirms of one prompt one after the other: SQLite's `BEGIN IMMEDIATE` locks the file before the
/// prompt is read, and on PostgreSQL the prompt's row is read `FOR UPDATE`; so the second waits, then reads
/// it confirmed and is refused. `restore_once`, `order_on_transaction` and `grant_on_order` make a second
/// delivery impossible even so.
public enum RestoreDeskProcedures {
    /// A player logged in: every dropped order of their Apple IDs' players gets a prompt (once), and the
    /// open prompts come back grouped per player. Throws `StoreError.unknownUser` for a player the store
    /// does not have.
    public static func recordLogin(_ db: some StoreSQLTransaction, userId: String, at now: Instant) throws -> RestoreLogin {
        guard try db.exists(#"SELECT 1 FROM "user" WHERE id = \#(userId)"#) else { throw StoreError.unknownUser(id: userId) }
        return try logIn(db, PlayerLogin(userId: userId, at: try db.stamp(now)))
    }

    /// Support confirms a prompt onto `target`: the order, the signed callback, the grant, the finished
    /// transaction, the events, the audit line and the confirmed prompt. Throws `RestoreRefusal` (nothing
    /// written) when the rules refuse.
    public static func confirm(
        _ db: some StoreSQLTransaction, transactionId: String, onto target: RestoreAccount, by staff: StaffMember, at now: Instant
    ) throws -> RestorePrompt {
        guard let request = try request(db, transactionId, locking: true) else { throw RestoreRefusal.unknownTransaction(transactionId) }
        let now = try db.stamp(now)
        let prompt = try prompt(db, request)
        var numbers = try db.restoreDeskNumbers(needing: 1, now: now)
        guard let orderId = numbers.next() else {
            throw StoreError.database(path: db.store, message: "the restore desk's block of order numbers is used up")
        }
        let result = RestoreRules.confirm(
            prompt, onto: target, by: staff, products: try products(db, appId: prompt.app.id), orderId: orderId, at: now)
        switch result {
        case .success(let decision):
            try commit(decision, db)
            try db.save(numbers)
            return try self.prompt(db, decision.request)
        case .failure(.notOnAppleID(let account, _, _)) where !(try db.exists(#"SELECT 1 FROM "user" WHERE id = \#(account)"#)):
            throw RestoreRefusal.unknownAccount(account)
        case .failure(let refusal):
            throw refusal
        }
    }

    /// Support declines a prompt with a reason; audited. The transaction stays unfinished.
    public static func decline(
        _ db: some StoreSQLTransaction, transactionId: String, reason: String, by staff: StaffMember, at now: Instant
    ) throws -> RestorePrompt {
        guard let request = try request(db, transactionId, locking: true) else { throw RestoreRefusal.unknownTransaction(transactionId) }
        let now = try db.stamp(now)
        switch RestoreRules.decline(try prompt(db, request), reason: reason, by: staff, at: now) {
        case .success(let decision):
            try commit(decision, db)
            return try prompt(db, decision.request)
        case .failure(let refusal):
            throw refusal
        }
    }

    /// The prompt of one transaction, whatever its status; `locking` holds its row until the transaction
    /// ends (a write's first read).
    public static func request(_ db: some StoreSQLTransaction, _ transactionId: String, locking: Bool = false) throws -> RestoreRequest? {
        try db.row("SELECT * FROM restore_request WHERE transaction_id = \(transactionId)\(locking ? .lockingRows : nil)")?.restoreRequest()
    }

    /// An app's products, by id.
    public static func products(_ db: some StoreSQLTransaction, appId: String) throws -> [Product] {
        try db.rows("SELECT * FROM product WHERE app_id = \(appId) ORDER BY id").map { try $0.product() }
    }

    /// The Apple IDs a player plays from.
    public static func appleIds(_ db: some StoreSQLTransaction, userId: String) throws -> [String] {
        try db.texts("SELECT DISTINCT apple_id FROM game_account WHERE user_id = \(userId) ORDER BY apple_id", column: "apple_id")
    }

    /// Every player with a game account on one of these Apple IDs.
    public static func players(_ db: some StoreSQLTransaction, appleIds: [String]) throws -> [String] {
        try db.texts("SELECT DISTINCT user_id FROM game_account WHERE apple_id IN \(list: appleIds) ORDER BY user_id", column: "user_id")
    }

    /// Opens prompts as `openPrompts` does and returns every open prompt of the players it looked at.
    public static func logIn(_ db: some StoreSQLTransaction, _ login: PlayerLogin) throws -> RestoreLogin {
        let (appleIds, players, opened) = try openPrompts(db, login)
        let open = try db.rows("SELECT * FROM restore_request WHERE status = 'open' AND user_id IN \(list: players) ORDER BY created_at, id")
            .map { try $0.restoreRequest() }
        return RestoreLogin(userId: login.userId, appleIds: appleIds, prompts: try open.map { try prompt(db, $0) }, opened: opened)
    }

    /// Opens a prompt, with its event, for each dropped order of the players on the Apple IDs
    /// `login.userId` plays from that has none yet. A simulated transaction counts as dropped only once its
    /// client crashed: one still in flight (its run was killed between the payment and the order) is the
    /// payment queue's to resume. A prompt another process opened for the same transaction meanwhile stays
    /// the one (`ON CONFLICT … DO NOTHING`).
    public static func openPrompts(_ db: some StoreSQLTransaction, _ login: PlayerLogin) throws -> (
        appleIds: [String], players: [String], opened: Set<Int64>
    ) {
        let appleIds = try appleIds(db, userId: login.userId)
        let players = Set(try players(db, appleIds: appleIds)).union([login.userId]).sorted()
        var opened: Set<Int64> = []
        for player in players {
            let rows = try db.rows(
                """
                SELECT t.*,
                  CASE WHEN EXISTS (SELECT 1 FROM payment_order o WHERE o.transaction_id = t.id) THEN 1 ELSE 0 END AS sd_has_order,
                  CASE WHEN EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id) THEN 1 ELSE 0 END AS sd_has_prompt
                FROM store_transaction t
                WHERE t.user_id = \(player) AND t.state = 'purchased' AND t.finished = 0
                  AND (NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id)
                       OR EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed'))
                ORDER BY t.purchase_date, t.id
                """)
            for row in rows where !(try row.flag("sd_has_prompt")) {
                let transaction = try row.transaction()
                guard RestoreRules.comesBack(transaction, hasOrder: try row.flag("sd_has_order")) else { continue }
                let (request, event) = RestoreRules.prompt(for: transaction, loggedIn: login.userId, at: login.at)
                let inserted = try db.row(
                    """
                    INSERT INTO restore_request (transaction_id, user_id, product_id, quantity, status, created_at)
                    VALUES (\(request.transactionId), \(request.userId), \(request.productId), \(request.quantity), \(request.status),
                      \(request.createdAt))
                    ON CONFLICT (transaction_id) DO NOTHING RETURNING id
                    """)
                guard let id = try inserted?.int("id") else { continue }
                opened.insert(id)
                try db.insert(event)
            }
        }
        return (appleIds, players, opened)
    }

    /// The desk's prompts of a status (nil: all) and environment, in the list's default order, from after
    /// `cursor`, each with what `prompt` adds: one read.
    public static func prompts(
        _ db: some StoreSQLTransaction, status: RestoreStatus?, environment: StoreEnvironment?, limit: Int, after cursor: RestoreCursor?
    ) throws -> [RestorePrompt] {
        try ListProcedures.restorePage(
            db, RestoreQuery(status: status, environment: environment), anchor: cursor.map { .after($0) } ?? .first, limit: limit
        ).map { try prompt(db, $0.request) }
    }

    /// How many prompts have each status (every status named, 0 when none); with `environment`, of that
    /// environment's purchases only.
    public static func counts(_ db: some StoreSQLTransaction, environment: StoreEnvironment? = nil) throws -> [RestoreStatus: Int] {
        var counts = Dictionary(uniqueKeysWithValues: RestoreStatus.allCases.map { ($0, 0) })
        let sql: StoreSQL
        if let environment {
            sql = """
                SELECT r.status AS status, count(*) AS n FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
                WHERE t.environment = \(environment) GROUP BY r.status
                """
        } else {
            sql = "SELECT status, count(*) AS n FROM restore_request GROUP BY status"
        }
        for row in try db.rows(sql) {
            if let status = RestoreStatus(rawValue: try row.text("status")) { counts[status] = Int(try row.int("n")) }
        }
        return counts
    }

    /// The prompt for one transaction, whatever its status; nil when it has none.
    public static func prompt(_ db: some StoreSQLTransaction, transactionId: String) throws -> RestorePrompt? {
        try request(db, transactionId).map { try prompt(db, $0) }
    }

    /// A prompt with its transaction, product, app, candidate accounts and (once confirmed) delivery.
    public static func prompt(_ db: some StoreSQLTransaction, _ request: RestoreRequest) throws -> RestorePrompt {
        let missing = StoreError.invalidArgument(
            "restore prompt \(request.id ?? 0) names transaction \(request.transactionId), which is missing or incomplete")
        guard let transaction = try db.row("SELECT * FROM store_transaction WHERE id = \(request.transactionId)")?.transaction() else {
            throw missing
        }
        guard let product = try db.row("SELECT * FROM product WHERE id = \(transaction.productId)")?.product(),
            let app = try db.row("SELECT * FROM app WHERE id = \(transaction.appId)")?.app()
        else { throw missing }
        var accounts = try db.rows("SELECT * FROM game_account WHERE user_id = \(transaction.userId) ORDER BY id").map { try $0.gameAccount() }
        let appleIds = Set(accounts.map(\.appleId)).sorted()
        accounts += try db.rows(
            """
            SELECT * FROM game_account WHERE apple_id IN \(list: appleIds) AND app_id = \(transaction.appId)
              AND user_id != \(transaction.userId) ORDER BY apple_id, id
            """
        ).map { try $0.gameAccount() }
        var delivery: RestoreDelivery?
        if let order = try db.row("SELECT * FROM payment_order WHERE transaction_id = \(transaction.id)")?.paymentOrder() {
            delivery = RestoreDelivery(
                order: order,
                callback: try db.row("SELECT * FROM server_callback WHERE verdict = 'accepted' AND order_id = \(order.id) ORDER BY id LIMIT 1")?
                    .callbackAttempt(),
                grant: try db.row("SELECT * FROM item_grant WHERE order_id = \(order.id)")?.grant())
        }
        return RestorePrompt(request: request, transaction: transaction, product: product, app: app, accounts: accounts, delivery: delivery)
    }

    /// Writes a decision: its rows and events, the prompt as it became, and the audit line.
    static func commit(_ decision: RestoreDecision, _ db: some StoreSQLTransaction) throws {
        try db.write(decision.change)
        let r = decision.request
        try db.execute(
            """
            UPDATE restore_request SET status = \(r.status), resolved_at = \(r.resolvedAt), resolved_by = \(r.resolvedBy),
              resolved_role = \(r.resolvedRole), target_user_id = \(r.targetUserId), target_sid = \(r.targetSid),
              target_role_id = \(r.targetRoleId), reason = \(r.reason)
            WHERE id = \(r.id ?? -1)
            """)
        try db.insert(decision.audit)
    }
}

extension RestoreDeskProcedures {
    /// Restore Purchases for one role: its Apple ID's past non-consumables and subscriptions in its app come
    /// back as `restored` and unlock without a new charge, as the app's ownership rule allows. One Restore
    /// Purchases an Apple ID at a time, across machines: the second reads what the first wrote.
    public static func restorePurchases(
        _ db: some StoreSQLTransaction, for target: RestoreAccount, appId: String?, by staff: StaffMember, at now: Instant
    ) throws -> RestorePurchases.Plan {
        guard try db.exists(#"SELECT 1 FROM "user" WHERE id = \#(target.userId)"#) else { throw RestoreRefusal.unknownAccount(target.userId) }
        let now = try db.stamp(now)
        let roles = try db.rows(
            "SELECT * FROM game_account WHERE user_id = \(target.userId) ORDER BY app_id\(.byteOrder), sid\(.byteOrder), role_id\(.byteOrder)"
        ).map { try $0.gameAccount() }
        let account = try RestorePurchases.account(for: target, appId: appId, roles: roles)
        guard let app = try db.row("SELECT * FROM app WHERE id = \(account.appId)")?.app() else { throw RestorePurchases.missingApp(of: account) }
        try db.serialize(.restorePurchases(appleId: account.appleId))
        let purchases = try pastPurchases(db, appleId: account.appleId, app: app)
        let numbers = try db.restoreDeskNumbers(needing: purchases.count, now: now)
        let result = RestorePurchases.plan(
            for: RestoreAccount(account), app: app, purchases: purchases, products: try products(db, appId: app.id),
            orderNumbers: numbers, by: staff, at: now)
        switch result {
        case .success(let plan):
            for item in plan.items { if let change = item.change { try db.write(change) } }
            try db.save(plan.orderNumbers)
            try db.insert(plan.audit)
            return plan
        case .failure(let refusal):
            throw refusal
        }
    }

    /// The Apple ID's past non-consumable and auto-renewable purchases in the app, each with its newest
    /// transaction and the accounts it was granted to.
    public static func pastPurchases(_ db: some StoreSQLTransaction, appleId: String, app: App) throws -> [RestorePurchases.PastPurchase] {
        let players = try players(db, appleIds: [appleId])
        let transactions = try db.rows(
            """
            SELECT t.* FROM store_transaction t JOIN product p ON p.id = t.product_id
            WHERE t.user_id IN \(list: players) AND t.app_id = \(app.id)
              AND t.state IN ('purchased', 'restored') AND t.finished = 1
              AND p.type IN ('non_consumable', 'auto_renewable')
            ORDER BY t.purchase_date, t.id\(.byteOrder)
            """
        ).map { try $0.transaction() }
        return try RestorePurchases.newestByOriginal(transactions).compactMap { newest in
            let original = newest.originalTransactionId
            guard let product = try db.row("SELECT * FROM product WHERE id = \(newest.productId)")?.product() else { return nil }
            let holders = try db.rows(
                """
                SELECT g.user_id, g.sid, g.role_id FROM store_transaction t
                JOIN payment_order o ON o.transaction_id = t.id JOIN item_grant g ON g.order_id = o.order_id
                WHERE t.original_transaction_id = \(original) ORDER BY g.granted_at, g.id
                """
            ).map { RestoreAccount(userId: try $0.text("user_id"), sid: try $0.text("sid"), roleId: try $0.text("role_id")) }
            let count = try db.row("SELECT COUNT(*) AS n FROM store_transaction WHERE original_transaction_id = \(original)")?.int("n") ?? 0
            return RestorePurchases.PastPurchase(latest: newest, product: product, holders: holders, transactionCount: Int(count))
        }
    }
}
