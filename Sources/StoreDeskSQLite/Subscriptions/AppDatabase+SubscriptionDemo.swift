import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

extension AppDatabase {
    /// Looks up what a demo subscription of `userId` needs. `productId` nil picks the app's monthly
    /// subscription (what a time rate is stated in), else its shortest period. The player must have no
    /// live subscription in the group at `instant`, the demo's start: judged as readers see it (at each
    /// chain's own time rate), so an earlier demo whose billing retry has run out no longer counts.
    public func subscriptionDemoSetup(userId: String, productId: String?, at instant: Instant) throws -> SubscriptionDemoSetup {
        try reader.read { db in
            guard let user = try User.fetchOne(db, matching: "id", userId) else { throw StoreError.unknownUser(id: userId) }
            let account = try Row.fetchOne(
                db, sql: "SELECT app_id, app_account_token FROM game_account WHERE user_id = ? ORDER BY app_id LIMIT 1",
                arguments: [userId])
            let chosen = try productId.flatMap { try Product.fetchOne(db, matching: "id", $0) }
            if let productId, chosen == nil { throw StoreError.invalidArgument("no product '\(productId)'") }
            let firstApp = try String.fetchOne(db, sql: "SELECT id FROM app ORDER BY id LIMIT 1")
            let accountApp: String? = account?["app_id"]
            guard let appId = chosen?.appId ?? accountApp ?? firstApp, let app = try App.fetchOne(db, matching: "id", appId)
            else { throw StoreError.invalidArgument("the store has no app to subscribe in") }
            let (catalogue, product) = try SubscriptionDemoSetup.product(
                chosen: chosen, app: app, appProducts: try Product.filter(Column("app_id") == app.id).fetchAll(db))
            let stored = try Subscription.fetchAll(
                db,
                sql: "SELECT * FROM subscription WHERE user_id = ? AND group_id = ? AND state IN ('active', 'grace_period', 'billing_retry') ORDER BY original_transaction_id",
                arguments: [user.id, product.subscriptionGroup])
            let highest = try UInt64.fetchOne(
                db,
                sql: """
                    SELECT MAX(CAST(original_transaction_id AS INTEGER)) FROM subscription
                    WHERE original_transaction_id GLOB '[0-9]*' AND length(original_transaction_id) <= 18
                    """) ?? 0
            let token: String? = account?["app_id"] == app.id ? account?["app_account_token"] : nil
            return try SubscriptionDemoSetup.checked(
                user: user, app: app, catalogue: catalogue, product: product, appAccountToken: token, stored: stored,
                events: try SubscriptionEventRow.events(db, originalTransactionIds: stored.map(\.id)), highest: highest, at: instant)
        }
    }

    /// Writes what a simulation has sent since the last call as notifications from `simulation`, in one
    /// transaction. Time passes in the store: its clock, when it keeps one, moves up to `now` (the
    /// simulation's time is the import's wall clock, so none is "from the future"), and rows it leaves
    /// behind are settled as any import's. The demo's `rate` is kept on its chains' rows, so whoever
    /// reads them back later ends billing retry when the demo would.
    public func recordSimulatedNotifications(
        _ events: [SubscriptionEvent], at now: Instant, rate: TimeRate
    ) throws -> NotificationImport.Report {
        try write { db in
            try NotificationImporter(db: db, source: "simulation", wallClock: now, stampAt: now, timeRate: rate, clockAtLeast: now)
                .run(SubscriptionEventLines(events: events))
        }
    }
}
