import GRDB
import StoreDeskCore

// Rows decoded column by column for the records every screen and snapshot reads. GRDB's Codable
// decoding gives the same values, but its first use of each record type instantiates generic
// decoding containers and scans the binary's protocol conformances, which was a large share of a
// short process such as `storedesk snapshot`. The column names are still the records' CodingKeys.

extension Row {
    /// The value of the column named by `key`; throws when it is missing or does not convert.
    fileprivate func value<Value: DatabaseValueConvertible>(_ key: some CodingKey) throws -> Value {
        try decode(forColumn: key.stringValue)
    }
}

extension User {
    public init(row: Row) throws {
        self.init(
            id: try row.value(CodingKeys.id), name: try row.value(CodingKeys.name),
            friendlyName: try row.value(CodingKeys.friendlyName), idCard: try row.value(CodingKeys.idCard),
            phone: try row.value(CodingKeys.phone), site: try row.value(CodingKeys.site),
            adultType: try row.value(CodingKeys.adultType), fcm: try row.value(CodingKeys.fcm),
            authorizState: try row.value(CodingKeys.authorizState), safety: try row.value(CodingKeys.safety),
            clientId: try row.value(CodingKeys.clientId), createdAt: try row.value(CodingKeys.createdAt))
    }
}

extension App {
    public init(row: Row) throws {
        self.init(
            id: try row.value(CodingKeys.id), name: try row.value(CodingKeys.name),
            bundleId: try row.value(CodingKeys.bundleId), appKey: try row.value(CodingKeys.appKey),
            currencyPerYuan: try row.value(CodingKeys.currencyPerYuan),
            restoreOwnership: try row.value(CodingKeys.restoreOwnership),
            gracePeriodDays: try row.value(CodingKeys.gracePeriodDays),
            appleAppId: try row.value(CodingKeys.appleAppId), environments: try row.value(CodingKeys.environments),
            callbackURL: try row.value(CodingKeys.callbackURL), notificationURL: try row.value(CodingKeys.notificationURL))
    }
}

extension GameAccount {
    public init(row: Row) throws {
        self.init(
            id: try row.value(CodingKeys.id), appleId: try row.value(CodingKeys.appleId),
            userId: try row.value(CodingKeys.userId), appId: try row.value(CodingKeys.appId),
            sid: try row.value(CodingKeys.sid), roleId: try row.value(CodingKeys.roleId),
            roleName: try row.value(CodingKeys.roleName), appAccountToken: try row.value(CodingKeys.appAccountToken))
    }
}

extension StoreTransaction {
    public init(row: Row) throws {
        self.init(
            id: try row.value(CodingKeys.id), originalTransactionId: try row.value(CodingKeys.originalTransactionId),
            userId: try row.value(CodingKeys.userId), appId: try row.value(CodingKeys.appId),
            productId: try row.value(CodingKeys.productId), quantity: try row.value(CodingKeys.quantity),
            state: try row.value(CodingKeys.state), failureReason: try row.value(CodingKeys.failureReason),
            environment: try row.value(CodingKeys.environment), sid: try row.value(CodingKeys.sid),
            roleId: try row.value(CodingKeys.roleId), appOrderId: try row.value(CodingKeys.appOrderId),
            ext: try row.value(CodingKeys.ext), purchaseDate: try row.value(CodingKeys.purchaseDate),
            expiresDate: try row.value(CodingKeys.expiresDate), revocationDate: try row.value(CodingKeys.revocationDate),
            revocationReason: try row.value(CodingKeys.revocationReason), finished: try row.value(CodingKeys.finished))
    }
}

extension Subscription {
    public init(row: Row) throws {
        self.init(
            id: try row.value(CodingKeys.id), userId: try row.value(CodingKeys.userId),
            appId: try row.value(CodingKeys.appId), productId: try row.value(CodingKeys.productId),
            groupId: try row.value(CodingKeys.groupId), state: try row.value(CodingKeys.state),
            autoRenew: try row.value(CodingKeys.autoRenew), originalPurchaseDate: try row.value(CodingKeys.originalPurchaseDate),
            purchaseDate: try row.value(CodingKeys.purchaseDate), expiresDate: try row.value(CodingKeys.expiresDate),
            gracePeriodExpiresDate: try row.value(CodingKeys.gracePeriodExpiresDate),
            revocationDate: try row.value(CodingKeys.revocationDate), revocationReason: try row.value(CodingKeys.revocationReason),
            expirationIntent: try row.value(CodingKeys.expirationIntent), offerType: try row.value(CodingKeys.offerType),
            offerId: try row.value(CodingKeys.offerId),
            timeRate: TimeRate(realMillisPerMonth: try row.value(CodingKeys.timeRateMillisPerMonth)),
            appleRevocationReason: try row.value(CodingKeys.appleRevocationReason))
    }
}
