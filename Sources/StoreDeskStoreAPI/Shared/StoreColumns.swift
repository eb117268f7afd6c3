import Foundation
import StoreDeskCore

/// One row's columns by name, as both backends read them: each value read as the type its record wants, and
/// a value that does not convert (a hand edit) is one line naming its column, never the row. A backend gives
/// the two primitive reads (text and integer, NULL as nil); the records are decoded here, once.
public protocol StoreColumns {
    /// The store's name, for the line a damaged value gives.
    var store: String { get }
    /// The column's text; nil for NULL. Throws when the row has no such column or it holds no text.
    func optionalText(_ column: String) throws -> String?
    /// The column's integer; nil for NULL. Throws when the row has no such column or it holds no integer.
    func optionalInt(_ column: String) throws -> Int64?
    /// The column's bytes (a blob, PostgreSQL's bytea); nil for NULL.
    func optionalBytes(_ column: String) throws -> [UInt8]?
}

extension StoreColumns {
    /// The line a column that holds a value StoreDesk cannot read gives.
    public func unreadable(_ column: String) -> StoreError {
        StoreError.damaged(path: store, detail: "its column \(column) holds a value StoreDesk cannot read")
    }

    public func text(_ column: String) throws -> String {
        guard let text = try optionalText(column) else { throw unreadable(column) }
        return text
    }

    public func int(_ column: String) throws -> Int64 {
        guard let int = try optionalInt(column) else { throw unreadable(column) }
        return int
    }

    public func bytes(_ column: String) throws -> [UInt8] {
        guard let bytes = try optionalBytes(column) else { throw unreadable(column) }
        return bytes
    }

    public func flag(_ column: String) throws -> Bool { try int(column) != 0 }
    public func optionalFlag(_ column: String) throws -> Bool? { try optionalInt(column).map { $0 != 0 } }
    public func instant(_ column: String) throws -> Instant { Instant(millis: try int(column)) }
    public func optionalInstant(_ column: String) throws -> Instant? { try optionalInt(column).map(Instant.init(millis:)) }

    /// A text column holding one of an enumeration's raw values.
    public func choice<T: RawRepresentable>(_ column: String, as type: T.Type = T.self) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: try text(column)) else {
            throw StoreError.damaged(path: store, detail: "its column \(column) holds a value StoreDesk does not know")
        }
        return value
    }

    public func optionalChoice<T: RawRepresentable>(_ column: String, as type: T.Type = T.self) throws -> T? where T.RawValue == String {
        guard let text = try optionalText(column) else { return nil }
        guard let value = T(rawValue: text) else {
            throw StoreError.damaged(path: store, detail: "its column \(column) holds a value StoreDesk does not know")
        }
        return value
    }

    public func number<T: RawRepresentable>(_ column: String, as type: T.Type = T.self) throws -> T where T.RawValue == Int {
        guard let value = T(rawValue: Int(try int(column))) else {
            throw StoreError.damaged(path: store, detail: "its column \(column) holds a value StoreDesk does not know")
        }
        return value
    }

    /// A text column holding JSON (NULL, or a value that does not decode, reads as nil).
    public func json<T: Decodable>(_ column: String, as type: T.Type) throws -> T? {
        try optionalText(column).flatMap { try? JSONDecoder().decode(type, from: Data($0.utf8)) }
    }
}

/// The records the stores' reads return, decoded from their rows (column names as the schema has them), the
/// same on both backends.
extension StoreColumns {
    public func user() throws -> User {
        User(
            id: try text("id"), name: try text("name"), friendlyName: try text("friendly_name"), idCard: try text("id_card"),
            phone: try text("phone"), site: try number("site"), adultType: try number("adult_type"), fcm: try flag("fcm"),
            authorizState: Int(try int("authoriz_state")), safety: Int(try int("safety")), clientId: try text("client_id"),
            createdAt: try instant("created_at"))
    }

    public func app() throws -> App {
        App(
            id: try text("id"), name: try text("name"), bundleId: try text("bundle_id"), appKey: try text("app_key"),
            currencyPerYuan: Int(try int("currency_per_yuan")), restoreOwnership: try choice("restore_ownership"),
            gracePeriodDays: Int(try int("grace_period_days")), appleAppId: try optionalInt("apple_app_id"),
            environments: try choice("environment"), callbackURL: try optionalText("callback_url"),
            notificationURL: try optionalText("notification_url"))
    }

    public func gameAccount() throws -> GameAccount {
        GameAccount(
            id: try int("id"), appleId: try text("apple_id"), userId: try text("user_id"), appId: try text("app_id"),
            sid: try text("sid"), roleId: try text("role_id"), roleName: try text("role_name"),
            appAccountToken: try text("app_account_token"))
    }

    public func transaction() throws -> StoreTransaction {
        StoreTransaction(
            id: try text("id"), originalTransactionId: try text("original_transaction_id"), userId: try text("user_id"),
            appId: try text("app_id"), productId: try text("product_id"), quantity: Int(try int("quantity")),
            state: try choice("state"), failureReason: try optionalChoice("failure_reason"),
            environment: try choice("environment"), sid: try text("sid"), roleId: try text("role_id"),
            appOrderId: try text("app_order_id"), ext: try text("ext"), purchaseDate: try instant("purchase_date"),
            expiresDate: try optionalInstant("expires_date"), revocationDate: try optionalInstant("revocation_date"),
            revocationReason: try optionalText("revocation_reason"), finished: try flag("finished"))
    }

    public func subscription() throws -> Subscription {
        Subscription(
            id: try text("original_transaction_id"), userId: try text("user_id"), appId: try text("app_id"),
            productId: try text("product_id"), groupId: try text("group_id"), state: try choice("state"),
            autoRenew: try flag("auto_renew"), originalPurchaseDate: try instant("original_purchase_date"),
            purchaseDate: try instant("purchase_date"), expiresDate: try instant("expires_date"),
            gracePeriodExpiresDate: try optionalInstant("grace_period_expires_date"),
            revocationDate: try optionalInstant("revocation_date"), revocationReason: try optionalText("revocation_reason"),
            expirationIntent: try optionalText("expiration_intent"), offerType: try optionalText("offer_type"),
            offerId: try optionalText("offer_id"), timeRate: TimeRate(realMillisPerMonth: try optionalInt("time_rate_month_ms")),
            appleRevocationReason: try optionalInt("apple_revocation_reason").map(Int.init))
    }

    public func restoreRequest() throws -> RestoreRequest {
        RestoreRequest(
            id: try int("id"), transactionId: try text("transaction_id"), userId: try text("user_id"),
            productId: try text("product_id"), quantity: Int(try int("quantity")), status: try choice("status"),
            createdAt: try instant("created_at"), resolvedAt: try optionalInstant("resolved_at"),
            resolvedBy: try optionalText("resolved_by"), resolvedRole: try optionalText("resolved_role"),
            targetUserId: try optionalText("target_user_id"), targetSid: try optionalText("target_sid"),
            targetRoleId: try optionalText("target_role_id"), reason: try optionalText("reason"))
    }

    public func product() throws -> Product {
        Product(
            id: try text("id"), appId: try text("app_id"), name: try text("name"), type: try choice("type"),
            priceCents: Int(try int("price_cents")), currency: try text("currency"),
            subscriptionGroup: try optionalText("subscription_group"), period: try optionalChoice("period"),
            grantsCurrency: Int(try int("grants_currency")))
    }

    public func paymentOrder() throws -> PaymentOrder {
        PaymentOrder(
            id: try text("order_id"), transactionId: try text("transaction_id"), appId: try text("app_id"),
            userId: try text("user_id"), productId: try text("product_id"), payment: try text("payment"),
            subPayment: try text("sub_payment"), amountCents: Int(try int("amount_cents")), sid: try text("sid"),
            roleId: try text("role_id"), appOrderId: try text("app_order_id"), ext: try text("ext"),
            createdAt: try instant("created_at"), status: try choice("status"))
    }

    public func callbackAttempt() throws -> CallbackAttempt {
        CallbackAttempt(
            orderId: try text("order_id"), attempt: Int(try int("attempt")), body: try text("body"),
            signExpected: try text("sign_expected"), signReceived: try text("sign_received"), verdict: try text("verdict"),
            reason: try text("reason"), reply: try text("reply"), receivedAt: try instant("received_at"),
            url: try optionalText("url"), httpStatus: try optionalInt("http_status").map(Int.init),
            latencyMicros: try optionalInt("latency_us").map(Int.init))
    }

    public func grant() throws -> Grant {
        Grant(
            id: try int("id"), orderId: try text("order_id"), userId: try text("user_id"), sid: try text("sid"),
            roleId: try text("role_id"), productId: try text("product_id"), quantity: Int(try int("quantity")),
            kind: try choice("kind"), currencyAmount: Int(try int("currency_amount")), source: try choice("source"),
            grantedAt: try instant("granted_at"))
    }

    /// A JSON array of login entries (NULL: never configured).
    /// A JSON list of login entries (NULL: never configured); anything else is the store's damage, naming
    /// the table (`check` names the row).
    public func entries(_ column: String, of table: String) throws -> [LoginEntry]? {
        guard let text = try optionalText(column) else { return nil }
        do {
            return try JSONDecoder().decode([LoginEntry].self, from: Data(text.utf8))
        } catch {
            throw StoreError.damaged(path: store, detail: "a value in table \(table) (stored as JSON) cannot be read")
        }
    }

    public func loginEntryConfiguration() throws -> LoginEntryConfiguration {
        LoginEntryConfiguration(
            appId: try text("app_id"), entries: try entries("entries", of: "login_entry_configuration"), updatedAt: try instant("updated_at"),
            updatedBy: try text("updated_by"), weChatAppId: try optionalText("wechat_app_id"), qqAppId: try optionalText("qq_app_id"),
            tapTapClientId: try optionalText("taptap_client_id"), universalLinkDomain: try optionalText("universal_link_domain"))
    }

    public func loginEntryHistory() throws -> LoginEntryHistory {
        LoginEntryHistory(
            id: try int("id"), appId: try text("app_id"), at: try instant("at"), actor: try text("actor"), role: try text("role"),
            surface: try text("surface"), oldEntries: try entries("old_entries", of: "login_entry_history"),
            newEntries: try entries("new_entries", of: "login_entry_history"))
    }

    public func paymentEvent() throws -> PaymentEvent {
        PaymentEvent(at: try instant("at"), transactionId: try text("transaction_id"), kind: try choice("kind"), detail: try text("detail"))
    }

    public func auditEntry() throws -> AuditEntry {
        AuditEntry(
            id: try int("id"), at: try instant("at"), actor: try text("actor"), role: try text("role"),
            action: try text("action"), subject: try text("subject"), detail: try text("detail"))
    }

    public func subscriptionEvent() throws -> SubscriptionEvent {
        let provenance = try text("provenance")
        var event: SubscriptionEvent
        do {
            event = try SubscriptionEvent.decode(jsonLine: try text("payload"))
        } catch {
            throw StoreError.damaged(path: store, detail: "a stored notification cannot be read back")
        }
        event.provenance = SubscriptionEvent.Provenance(rawValue: provenance) ?? .unverifiedJWS
        event.origin = SubscriptionEvent.Origin(source: try optionalText("source"))
        if event.provenance == .verified, let root = try optionalText("root_sha256") {
            event.signer = Signer(
                rootSHA256: root, rootSubject: try optionalText("root_subject") ?? "",
                leafSubject: try optionalText("signer_subject") ?? "", leafSerial: try optionalText("signer_serial") ?? "")
        }
        return event
    }
}
