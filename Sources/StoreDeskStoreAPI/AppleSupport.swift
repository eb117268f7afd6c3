import StoreDeskCore

/// Who wrote an Apple action into the audit log: a staff member (by name and role) or an app's API key.
public struct AuditActor: Hashable, Sendable {
    public var name: String
    public var role: String

    public init(name: String, role: String) {
        self.name = name
        self.role = role
    }

    public init(_ staff: StaffMember) { self.init(name: staff.name, role: staff.role.rawValue) }

    /// The App Store Server API key that asked.
    public static func apiKey(_ keyId: String) -> AuditActor { AuditActor(name: "api key \(keyId)", role: "api") }
}

/// The support desk's Apple actions, persisted by every backend: each decided by `AppleSupport` inside
/// the write, audited, and writing the notification Apple would send into the store's notification log
/// (`subscription_event`): a subscription's through the subscription engine (its row folded again), a
/// one-time purchase's beside its transaction (whose revocation is written too).
public protocol AppleSupportStore: Sendable {
    /// Refunds a purchase: `id` a transaction id, or a subscription's original transaction id (its latest
    /// period is refunded). `appIssue`: Apple's revocation reason 1, else 0. Support or developer only.
    func refund(_ id: String, reason: String, appIssue: Bool, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome
    /// Reverses a refund (REFUND_REVERSED): the purchase or subscription is entitled again.
    func reverseRefund(_ id: String, reason: String, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome
    /// Raises a CONSUMPTION_REQUEST for a consumable's refund request (`reason` one of
    /// `ConsumptionRequestRecord.reasons`), its 12 hours counted on the store's time line.
    func requestConsumption(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws -> ConsumptionRequestRecord
    /// Answers a consumption request with consumption information (from the desk or Send Consumption
    /// Information); after the deadline the answer is kept and marked late.
    func answerConsumption(transactionId: String, _ info: ConsumptionInformation, by actor: AuditActor, at now: Instant) throws
        -> ConsumptionRequestRecord
    /// Consumption requests, newest first (one app's with `appId`), at most `limit`.
    func consumptionRequests(appId: String?, limit: Int) throws -> [ConsumptionRequestRecord]
    /// The original transaction ids of an app's subscriptions to `productId` whose row says they are
    /// entitled (active or in their grace period), by id: a mass extension's candidates (each decided again).
    func entitledSubscriptionIds(appId: String, productId: String) throws -> [String]
}

/// What a refund or its reversal did.
public struct AppleSupportOutcome: Hashable, Sendable {
    /// The transaction acted on (a subscription's latest period for a subscription).
    public var transactionId: String
    public var originalTransactionId: String
    public var userId: String
    public var productId: String
    public var isSubscription: Bool
    /// The notification written to the log.
    public var notification: SubscriptionEvent

    public init(
        transactionId: String, originalTransactionId: String, userId: String, productId: String, isSubscription: Bool,
        notification: SubscriptionEvent
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.userId = userId
        self.productId = productId
        self.isSubscription = isSubscription
        self.notification = notification
    }
}

/// What every backend decides the same way about the support actions: who may, the inputs, the audit lines.
public enum AppleSupportWrites {
    /// Refuses an action by anyone who may not, on a read-only store, or with a bad reason.
    public static func check(_ staff: StaffMember, readOnly: Bool, reason: String?) throws {
        guard !readOnly else { throw StoreError.invalidArgument("the store is open read-only: nothing was changed") }
        if let refusal = staff.refusal(.actForApple) { throw StoreError.invalidArgument(refusal) }
        if let reason, let problem = AppleSupport.reasonProblem(reason) { throw StoreError.invalidArgument(problem) }
    }

    /// Refuses a consumption request reason Apple does not have.
    public static func checkConsumptionReason(_ reason: String) throws {
        guard ConsumptionRequestRecord.reasons.contains(reason) else {
            throw StoreError.invalidArgument(
                "--reason must be one of \(ConsumptionRequestRecord.reasons.joined(separator: ", ")), got '\(reason.echoed)'")
        }
    }

    public static func noPurchase(_ id: String) -> StoreError {
        StoreError.invalidArgument("no transaction or subscription '\(id.echoed)' in the store")
    }

    public static func refusal(_ text: String) -> StoreError { StoreError.invalidArgument(text) }

    public static func refundAudit(_ done: AppleSupportOutcome, reason: String, appIssue: Bool, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "apple.refund", subject: "transaction \(done.transactionId)",
            detail: "refunded \(done.productId) of \(done.userId) (\(appIssue ? "app issue" : "other")): \(reason); "
                + "REFUND \(done.notification.notificationUUID)")
    }

    public static func reversalAudit(_ done: AppleSupportOutcome, reason: String, by staff: StaffMember, at now: Instant) -> AuditEntry {
        AuditEntry(
            at: now, actor: staff.name, role: staff.role.rawValue, action: "apple.refund.reverse", subject: "transaction \(done.transactionId)",
            detail: "refund of \(done.productId) of \(done.userId) reversed: \(reason); REFUND_REVERSED \(done.notification.notificationUUID)")
    }

    /// Why a support action was done, read back from its audit line (`refundAudit`, `reversalAudit`,
    /// `AppleAPIWrites.extensionAudit`, whose forms are here): the reason as typed for a refund or its
    /// reversal, the days and Apple's reason code for an extension; nil for any other line.
    public enum Why: Sendable, Hashable {
        case typed(String)
        case extended(days: Int, reasonCode: Int)
    }

    public static func why(_ entry: AuditEntry) -> Why? {
        let detail = entry.detail
        func between(_ start: String, _ end: String) -> String? {
            guard let from = detail.range(of: start), let to = detail.range(of: end, options: .backwards), from.upperBound <= to.lowerBound
            else { return nil }
            return String(detail[from.upperBound..<to.lowerBound])
        }
        switch entry.action {
        case "apple.refund": return between("): ", "; REFUND ").map(Why.typed)
        case "apple.refund.reverse": return between(" reversed: ", "; REFUND_REVERSED ").map(Why.typed)
        case "apple.renewal.extend":
            guard let days = between("extended by ", " days (reason ").flatMap({ Int($0) }),
                let code = between(" days (reason ", ", request ").flatMap({ Int($0) })
            else { return nil }
            return .extended(days: days, reasonCode: code)
        default: return nil
        }
    }

    /// The audit line of each support action among a subscription's notifications, by notification UUID:
    /// who did it and why, for its pane. A refund's and its reversal's line name the notification; an
    /// extension's is the one on the same chain stamped when the notification was signed (else the latest
    /// before it). Reads the audit log through the seam, so both backends answer alike.
    public static func actions(
        for events: [SubscriptionEvent], originalTransactionId id: String, in store: any AuditStore
    ) throws -> [String: AuditEntry] {
        var found: [String: AuditEntry] = [:]
        var extensions: [AuditEntry]?
        for event in events where event.isSupportAction {
            if event.notificationType == .renewalExtended {
                if extensions == nil {
                    extensions = try store.audit(AuditQuery(action: "apple.renewal.extend", text: "transaction \(id)")).first(limit: 100)
                        .filter { $0.subject == "transaction \(id)" }
                }
                let lines = extensions ?? []
                let line = lines.first { $0.at == event.signedDate } ?? lines.filter { $0.at <= event.signedDate }.max { $0.at < $1.at }
                if let line { found[event.notificationUUID] = line }
            } else if let line = try store.audit(AuditQuery(action: "apple.refund", text: event.notificationUUID)).first(limit: 1).first {
                found[event.notificationUUID] = line
            }
        }
        return found
    }

    public static func consumptionRequestAudit(_ request: ConsumptionRequestRecord, uuid: String, by staff: StaffMember) -> AuditEntry {
        AuditEntry(
            at: request.requestedAt, actor: staff.name, role: staff.role.rawValue, action: "apple.consumption.request",
            subject: "transaction \(request.transactionId)",
            detail: "consumption request (\(request.reason)) for \(request.userId), answer by \(request.deadline.iso8601); CONSUMPTION_REQUEST \(uuid)")
    }

    public static func consumptionAnswerAudit(_ request: ConsumptionRequestRecord, by actor: AuditActor) -> AuditEntry {
        let late = request.answeredAt.map { $0 > request.deadline } ?? false
        return AuditEntry(
            at: request.answeredAt ?? request.requestedAt, actor: actor.name, role: actor.role, action: "apple.consumption.answer",
            subject: "transaction \(request.transactionId)",
            detail: "consumption information sent\(late ? " after the deadline" : ""): \(request.answer ?? "{}")")
    }
}

extension AppStoreServerStore {
    /// Extend a Subscription Renewal Date by a staff member (support or developer), audited as theirs.
    public func extendRenewalDate(
        originalTransactionId: String, _ request: RenewalExtensionRequest, by staff: StaffMember, readOnly: Bool, at now: Instant
    ) throws -> RenewalExtension {
        try AppleSupportWrites.check(staff, readOnly: readOnly, reason: nil)
        let done: RenewalExtension?
        do {
            done = try extendRenewalDate(originalTransactionId: originalTransactionId, request, actor: AuditActor(staff), at: now)
        } catch let error as AppStoreAPIError {
            throw StoreError.invalidArgument("renewal date not extended: \(AppleSupportWrites.sentence(error))")
        }
        guard let done else { throw StoreError.invalidArgument("no subscription with original transaction id '\(originalTransactionId.echoed)'") }
        return done
    }

    /// Set App Account Token by a staff member, audited as theirs: `token` a UUID, or empty to clear it.
    public func setAppAccountToken(_ token: String, originalTransactionId: String, by staff: StaffMember, readOnly: Bool, at now: Instant) throws {
        try AppleSupportWrites.check(staff, readOnly: readOnly, reason: nil)
        guard let customer = try appStoreCustomer(transactionId: originalTransactionId) else {
            throw StoreError.invalidArgument("no transaction '\(originalTransactionId.echoed)' in the store")
        }
        let checked: String
        do {
            checked = try AppStoreServerAPI.checkAppAccountToken(customer, token: token)
        } catch {
            throw StoreError.invalidArgument("app account token not set: \(AppleSupportWrites.sentence(error))")
        }
        try setAppAccountToken(checked, originalTransactionId: originalTransactionId, actor: AuditActor(staff), at: now)
    }
}

extension AppleSupportWrites {
    /// An App Store Server API error as the command line says it.
    public static func sentence(_ error: AppStoreAPIError) -> String {
        switch error.errorCode {
        case AppStoreAPIError.subscriptionMaxExtension.errorCode: "the subscription was extended twice in the last 365 days (Apple's limit)"
        case AppStoreAPIError.subscriptionExtensionIneligible.errorCode: "the subscription is not active"
        case AppStoreAPIError.invalidExtendByDays.errorCode: "--days must be from 1 to \(RenewalExtensionRequest.longestDays)"
        case AppStoreAPIError.invalidExtendReasonCode.errorCode:
            "--reason-code must be 0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service issue)"
        default: "\(error.errorMessage) (\(error.errorCode))"
        }
    }
}
