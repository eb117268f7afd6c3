import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk support ...`: the support desk's Apple actions on a purchase, each audited and each writing
/// the notification Apple would send into the store's notification log (which `serve` sends on).
struct SupportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "support",
        abstract: "Apple's support actions: refund, reverse a refund, consumption requests, renewal extensions, app account tokens, order ids.",
        discussion: """
            Each write needs the support or developer role, is audited, and writes the notification Apple sends \
            (REFUND, REFUND_REVERSED, CONSUMPTION_REQUEST, RENEWAL_EXTENDED) to the store's notification log; a \
            subscription's goes through the subscription engine, so `subs` and `check` see it at once.
            """,
        subcommands: [Refund.self, Unrefund.self, Extend.self, Token.self, Order.self, Consumption.self])

    struct Refund: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refund a purchase (REFUND): a transaction id, or a subscription's original transaction id (its current period).")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "A transaction id, or a subscription's original transaction id.") var transaction: String
        @Option(help: "Why (kept in the audit log), one line.") var reason: String
        @Flag(help: "Apple's revocation reason 1: refunded for an issue in the app (default 0, other).") var appIssue = false
        @OptionGroup var output: OutputOptions

        func run() throws {
            let done = try reporting { () throws -> AppleSupportOutcome in
                let member = try staff.staff.member("support refund", may: .actForApple)
                let database = try store.open(.readWrite)
                return try database.refund(transaction, reason: reason, appIssue: appIssue, by: member, at: database.commandNow().instant)
            }
            try output.show(SupportReport(action: "refund", done))
        }
    }

    struct Unrefund: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reverse a refund (REFUND_REVERSED): the purchase or subscription is the player's again.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "A transaction id, or a subscription's original transaction id.") var transaction: String
        @Option(help: "Why (kept in the audit log), one line.") var reason: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let done = try reporting { () throws -> AppleSupportOutcome in
                let member = try staff.staff.member("support unrefund", may: .actForApple)
                let database = try store.open(.readWrite)
                return try database.reverseRefund(transaction, reason: reason, by: member, at: database.commandNow().instant)
            }
            try output.show(SupportReport(action: "unrefund", done))
        }
    }

    struct Extend: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Extend a subscription's renewal date (RENEWAL_EXTENDED): 1-90 days, at most twice in 365 days.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The subscription's original transaction id.") var originalTransaction: String
        @Option(help: "Days to extend by, 1 to 90.") var days: Int
        @Option(help: "Apple's reason code: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.") var reasonCode: Int
        @Option(help: "The request's own id (default: a new UUID); the same id again changes nothing.") var requestId: String?
        @OptionGroup var output: OutputOptions

        func run() throws {
            let done = try reporting { () throws -> RenewalExtension in
                let member = try staff.staff.member("support extend", may: .actForApple)
                let request: RenewalExtensionRequest
                do {
                    request = try RenewalExtensionRequest(
                        extendByDays: days, extendReasonCode: reasonCode, requestIdentifier: requestId ?? UUID().uuidString.lowercased())
                } catch let error as AppStoreAPIError {
                    throw StoreError.invalidArgument(AppleSupportWrites.sentence(error))
                }
                let database = try store.open(.readWrite)
                return try database.extendRenewalDate(
                    originalTransactionId: originalTransaction, request, by: member, readOnly: false, at: database.commandNow().instant)
            }
            try output.show(SupportExtensionReport(done: done))
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the app account token (a UUID) of an original transaction and every transaction of its chain.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The original transaction id.") var originalTransaction: String
        @Argument(help: "The app account token, a UUID.") var token: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let canonical = try reporting { () throws -> String in
                let member = try staff.staff.member("support token", may: .actForApple)
                guard let canonical = AppStoreAPIError.canonicalUUID(token) else {
                    throw StoreError.invalidArgument("the app account token must be a UUID, got '\(token.echoed)'")
                }
                let database = try store.open(.readWrite)
                try database.setAppAccountToken(
                    canonical, originalTransactionId: originalTransaction, by: member, readOnly: false, at: database.commandNow().instant)
                return canonical
            }
            try output.show(SupportTokenReport(originalTransactionId: originalTransaction, token: canonical))
        }
    }

    struct Order: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Look up a purchase by the order id on the player's Apple receipt (e.g. MK5TTTVWJH).")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The order id Apple prints on the receipt.") var orderId: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let report = try reporting { () throws -> SupportOrderReport in
                guard let id = AppleOrderId.transactionId(of: orderId.trimmingCharacters(in: .whitespaces)) else {
                    throw StoreError.invalidArgument("'\(orderId.echoed)' is not an order id: ten letters and digits, as Apple's receipt prints it")
                }
                let database = try store.open(.readOnly)
                guard let customer = try database.appStoreCustomer(transactionId: id),
                    let purchase = customer.purchases.first(where: { $0.transaction.id == id })
                else { throw StoreError.invalidArgument("no purchase has order id \(orderId.uppercased()) (transaction \(id))") }
                return SupportOrderReport(orderId: AppleOrderId.of(transactionId: id), purchase: purchase, app: customer.app)
            }
            try output.show(report)
        }
    }

    struct Consumption: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The consumption-request desk: raise a CONSUMPTION_REQUEST, answer it within 12 hours, list them.",
            subcommands: [Request.self, Answer.self, List.self])

        struct Request: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "A player asked Apple to refund a consumable: raise Apple's CONSUMPTION_REQUEST (12 hours to answer).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Argument(help: "The consumable's transaction id.") var transaction: String
            @Option(help: "Why the player asked: \(ConsumptionRequestRecord.reasons.joined(separator: ", ")).") var reason: String
            @OptionGroup var output: OutputOptions

            func run() throws {
                let (request, now) = try reporting { () throws -> (ConsumptionRequestRecord, Instant) in
                    let member = try staff.staff.member("support consumption request", may: .actForApple)
                    let database = try store.open(.readWrite)
                    let now = try database.commandNow().instant
                    return (try database.requestConsumption(transactionId: transaction, reason: reason, by: member, at: now), now)
                }
                try output.show(ConsumptionReport(requests: [request], now: now))
            }
        }

        struct Answer: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Answer a consumption request with consumption information (the player consented to share it).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Argument(help: "The consumable's transaction id.") var transaction: String
            @Option(help: "0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed.") var consumptionStatus: Int
            @Option(help: "0 undeclared, 1 Apple, 2 non-Apple.") var platform: Int
            @Option(help: "0 delivered and working, 1 quality issue, 2 wrong item, 3 server outage, 4 currency change, 5 other.")
            var deliveryStatus: Int
            @Flag(help: "A sample or trial of the content was provided.") var sampleContentProvided = false
            @Option(help: "Apple's band 0-7.") var accountTenure = 0
            @Option(help: "Apple's band 0-7.") var playTime = 0
            @Option(help: "Apple's band 0-7.") var lifetimeDollarsRefunded = 0
            @Option(help: "Apple's band 0-7.") var lifetimeDollarsPurchased = 0
            @Option(help: "0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access.") var userStatus = 0
            @Option(help: "0 undeclared, 1 grant, 2 decline, 3 no preference.") var refundPreference: Int?
            @OptionGroup var output: OutputOptions

            func run() throws {
                let (request, now) = try reporting { () throws -> (ConsumptionRequestRecord, Instant) in
                    let member = try staff.staff.member("support consumption answer", may: .actForApple)
                    let info: ConsumptionInformation
                    do {
                        info = try ConsumptionInformation(
                            consumptionStatus: consumptionStatus, platform: platform, sampleContentProvided: sampleContentProvided,
                            deliveryStatus: deliveryStatus, accountTenure: accountTenure, playTime: playTime,
                            lifetimeDollarsRefunded: lifetimeDollarsRefunded, lifetimeDollarsPurchased: lifetimeDollarsPurchased,
                            userStatus: userStatus, refundPreference: refundPreference)
                    } catch let error as AppStoreAPIError {
                        throw StoreError.invalidArgument("consumption information refused: \(error.errorMessage) (\(error.errorCode))")
                    }
                    let database = try store.open(.readWrite)
                    let now = try database.commandNow().instant
                    return (try database.answerConsumption(transactionId: transaction, info, by: AuditActor(member), at: now), now)
                }
                try output.show(ConsumptionReport(requests: [request], now: now))
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Consumption requests, newest first: open with the time left, answered, or missed.")
            @OptionGroup var store: StoreOptions
            @Option(help: "Only this app's.") var app: String?
            @Option(help: "At most this many (default 50).") var limit = 50
            @OptionGroup var output: OutputOptions

            func validate() throws {
                guard (1...10_000).contains(limit) else { throw fail("--limit must be from 1 to 10000, got \(limit)") }
            }

            func run() throws {
                let (requests, now) = try reporting { () throws -> ([ConsumptionRequestRecord], Instant) in
                    let database = try store.open(.readOnly)
                    return (try database.consumptionRequests(appId: app, limit: limit), try database.commandNow().instant)
                }
                try output.show(ConsumptionReport(requests: requests, now: now))
            }
        }
    }
}

/// What `support refund` and `support unrefund` print.
struct SupportReport: CommandReport {
    var action: String
    var done: AppleSupportOutcome

    init(action: String, _ done: AppleSupportOutcome) {
        self.action = action
        self.done = done
    }

    struct JSON: Encodable {
        var action: String
        var transactionId: String
        var originalTransactionId: String
        var userId: String
        var productId: String
        var subscription: Bool
        var notificationType: String
        var notificationUUID: String
        var signedDate: String
    }

    var json: JSON {
        JSON(
            action: action, transactionId: done.transactionId, originalTransactionId: done.originalTransactionId, userId: done.userId,
            productId: done.productId, subscription: done.isSubscription, notificationType: done.notification.notificationType.rawValue,
            notificationUUID: done.notification.notificationUUID, signedDate: done.notification.signedDate.iso8601)
    }

    var text: String {
        reportText([
            "\(action == "refund" ? "refunded" : "refund reversed:") \(done.productId) of \(done.userId) (transaction \(done.transactionId))",
            "  \(done.notification.notificationType.rawValue) \(done.notification.notificationUUID) written to the notification log at \(done.notification.signedDate.iso8601)",
        ])
    }
}

/// What `support extend` prints.
struct SupportExtensionReport: CommandReport {
    var done: RenewalExtension

    struct JSON: Encodable {
        var originalTransactionId: String
        var requestIdentifier: String
        var extendByDays: Int
        var extendReasonCode: Int
        var previousExpiresDate: String
        var effectiveDate: String
    }

    var json: JSON {
        JSON(
            originalTransactionId: done.originalTransactionId, requestIdentifier: done.requestIdentifier, extendByDays: done.extendByDays,
            extendReasonCode: done.extendReasonCode, previousExpiresDate: done.previousExpiresDate.iso8601, effectiveDate: done.effectiveDate.iso8601)
    }

    var text: String {
        reportText([
            "renewal date of \(done.originalTransactionId) extended by \(done.extendByDays) days: \(done.previousExpiresDate.iso8601) to \(done.effectiveDate.iso8601)",
            "  reason code \(done.extendReasonCode), request \(done.requestIdentifier); RENEWAL_EXTENDED written to the notification log",
        ])
    }
}

/// What `support token` prints.
struct SupportTokenReport: CommandReport {
    var originalTransactionId: String
    var token: String

    struct JSON: Encodable {
        var originalTransactionId: String
        var appAccountToken: String
    }

    var json: JSON { JSON(originalTransactionId: originalTransactionId, appAccountToken: token) }
    var text: String { "app account token of \(originalTransactionId) (and its chain) set to \(token)" }
}

/// What `support order` prints: the purchase an order id names.
struct SupportOrderReport: CommandReport {
    var orderId: String
    var purchase: AppStorePurchase
    var app: App

    struct JSON: Encodable {
        var orderId: String
        var transactionId: String
        var originalTransactionId: String
        var userId: String
        var appId: String
        var productId: String
        var purchaseDate: String
        var state: String
        var revocationDate: String?
    }

    var json: JSON {
        let transaction = purchase.transaction
        return JSON(
            orderId: orderId, transactionId: transaction.id, originalTransactionId: transaction.originalTransactionId, userId: transaction.userId,
            appId: app.id, productId: transaction.productId, purchaseDate: transaction.purchaseDate.iso8601, state: transaction.state.rawValue,
            revocationDate: transaction.revocationDate?.iso8601)
    }

    var text: String {
        let transaction = purchase.transaction
        return reportText([
            "order \(orderId): transaction \(transaction.id) of \(transaction.userId), \(transaction.productId) (\(app.id))",
            "  bought \(transaction.purchaseDate.iso8601), \(transaction.state.rawValue)"
                + (transaction.revocationDate.map { ", refunded \($0.iso8601)" } ?? ""),
            "  refund it: storedesk support refund \(transaction.id) --reason TEXT",
        ])
    }
}

/// What the consumption desk prints: each request and where it stands at the store's instant.
struct ConsumptionReport: CommandReport {
    var requests: [ConsumptionRequestRecord]
    var now: Instant

    struct JSON: Encodable {
        struct Item: Encodable {
            var transactionId: String
            var appId: String
            var userId: String
            var reason: String
            var requestedAt: String
            var deadline: String
            var standing: String
            var answeredAt: String?
            var answeredBy: String?
            var answer: String?
        }

        var requests: [Item]
    }

    static func standing(_ request: ConsumptionRequestRecord, at now: Instant) -> String {
        switch request.standing(at: now) {
        case .open: "open"
        case .answered(let late): late ? "answered_late" : "answered"
        case .missed: "missed"
        }
    }

    var json: JSON {
        JSON(
            requests: requests.map {
                JSON.Item(
                    transactionId: $0.transactionId, appId: $0.appId, userId: $0.userId, reason: $0.reason, requestedAt: $0.requestedAt.iso8601,
                    deadline: $0.deadline.iso8601, standing: Self.standing($0, at: now), answeredAt: $0.answeredAt?.iso8601,
                    answeredBy: $0.answeredBy, answer: $0.answer)
            })
    }

    var text: String {
        reportText(
            requests.map { "\($0.transactionId)  \($0.userId)  \($0.reason)  requested \($0.requestedAt.iso8601): \($0.describe(at: now))" })
    }

    var note: String? { requests.isEmpty ? "no consumption requests" : nil }
}
