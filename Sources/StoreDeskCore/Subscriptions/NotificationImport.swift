import Foundation

/// The rules for taking App Store notifications into a store, and what an import reports, line by line.
///
/// Each line ends one of three ways: imported (the notification and its subscription's new state are
/// kept), skipped (nothing to do: a repeat, or nothing about a subscription), or rejected (it cannot be
/// taken as it is: unreadable, an unknown product, signed in the future). The store applies a line all
/// or nothing, so a rejected line leaves no trace.
///
///     NotificationImport.problem(with: event, product: catalogue[id], bundleId: app.bundleId, clock: clock, wallClock: now)
public enum NotificationImport {
    public enum Outcome: Hashable, Sendable {
        case imported
        case skipped(String)
        case rejected(String)

        public var name: String {
            switch self {
            case .imported: "imported"
            case .skipped: "skipped"
            case .rejected: "rejected"
            }
        }

        /// Why a line was skipped or rejected; nil when it was imported.
        public var reason: String? {
            switch self {
            case .imported: nil
            case .skipped(let reason), .rejected(let reason): reason
            }
        }
    }

    /// One line's fate.
    public struct Line: Hashable, Sendable {
        /// 1-based, as an editor shows it.
        public var line: Int
        public var notificationUUID: String?
        public var originalTransactionId: String?
        /// The player the notification was given to, when it was imported.
        public var userId: String?
        public var outcome: Outcome

        public init(
            line: Int, notificationUUID: String? = nil, originalTransactionId: String? = nil, userId: String? = nil,
            outcome: Outcome
        ) {
            self.line = line
            self.notificationUUID = notificationUUID
            self.originalTransactionId = originalTransactionId
            self.userId = userId
            self.outcome = outcome
        }
    }

    /// What an import did. Imported lines are counted, not kept, so a file of a million lines keeps memory
    /// flat; `lines` is filled only by callers that ask for every line (tests, the demo, small imports).
    public struct Report: Hashable, Sendable {
        public var imported = 0
        public var skipped = 0
        public var rejected = 0
        /// Every non-blank line, in file order, when the caller collects them; else empty.
        public var lines: [Line] = []
        /// The first rejected line, kept whatever the caller collects.
        public var firstRejection: Line?
        /// How many players were made for notifications no one owned.
        public var usersCreatedCount = 0
        /// The first few of them (named after their original transaction): a summary names a few, not 20,000.
        public var usersCreated: [String] = []
        /// How many subscription chains the import wrote.
        public var subscriptionsWritten = 0
        /// Imported lines by how far they are trusted.
        public var provenance: [SubscriptionEvent.Provenance: Int] = [:]

        /// How many new players a report names.
        public static let namedUsers = 5

        public init() {}

        /// Counts a line's fate (and keeps it when `keep`).
        public mutating func record(_ line: Line, keep: Bool) {
            switch line.outcome {
            case .imported: imported += 1
            case .skipped: skipped += 1
            case .rejected:
                rejected += 1
                if firstRejection == nil { firstRejection = line }
            }
            if keep { lines.append(line) }
        }

        /// Counts a player made for an unowned chain, naming the first few.
        public mutating func recordNewUser(_ id: String) {
            usersCreatedCount += 1
            if usersCreated.count < Self.namedUsers { usersCreated.append(id) }
        }

        /// Adds what later lines wrote (chains, new players, provenance; not the lines' fates, which
        /// `record` counts): an import writing lines a batch at a time adds a batch once it is in.
        public mutating func add(_ later: Report) {
            subscriptionsWritten += later.subscriptionsWritten
            for id in later.usersCreated { recordNewUser(id) }
            usersCreatedCount += later.usersCreatedCount - later.usersCreated.count
            for (provenance, count) in later.provenance { self.provenance[provenance, default: 0] += count }
        }

        /// `new users: ot-1, ot-2, ot-3, ot-4, ot-5 and 19,995 more` (each id's controls escaped, like any
        /// imported text a line shows).
        public var newUsersSummary: String? {
            guard usersCreatedCount > 0 else { return nil }
            let more = usersCreatedCount - usersCreated.count
            return "new users: " + usersCreated.map { ControlCharacters.escaped($0) }.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
        }
    }

    /// The apps and products an import checks lines against, read once before the lines are judged
    /// (on several cores at once).
    public struct Catalogue: Sendable {
        public var products: [String: Product]
        public var apps: [String: App]

        public init(products: [Product], apps: [App]) {
            self.products = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// A line judged before the store sees it: what it says and how far it is trusted, or why it
    /// cannot be imported. Made on any core; the store then only finds owners and writes.
    public struct Judged: Sendable {
        public var line: Int
        public var verdict: Verdict

        public enum Verdict: Sendable {
            /// Not a notification at all (not JSON, not UTF-8, a field missing): nothing is written.
            case unreadable(String)
            /// A notification refused by a signature check (or for want of a trusted root).
            case refused(String, SubscriptionEvent)
            /// Readable and trusted as `event.provenance` says. `payload` is the JSON kept in the store (the
            /// line itself when it came decoded, the decoded notification when it came signed); `problem`
            /// is why it is skipped or rejected after the repeat check, nil when it can go in.
            case event(SubscriptionEvent, product: Product?, payload: String, problem: Outcome?)
        }

        public init(line: Int, verdict: Verdict) {
            self.line = line
            self.verdict = verdict
        }
    }

    /// Judges one line of a file: decodes it, verifies its signatures (`trust`), then checks it against
    /// the catalogue and the clocks (`problem`) and the app (`identityProblem`).
    public static func judge(
        line number: Int, text: Substring, trust: NotificationTrust, catalogue: Catalogue, clock: Instant,
        wallClock: Instant
    ) -> Judged {
        let decoded: NotificationLine
        do {
            decoded = try NotificationLine.decode(line: text)
        } catch {
            return Judged(line: number, verdict: .unreadable(SubscriptionDecodingError(error).description))
        }
        switch trust.judge(decoded) {
        case .refused(let reason): return Judged(line: number, verdict: .refused(reason, decoded.event))
        case .trusted(let provenance, let signer):
            var event = decoded.event
            event.provenance = provenance
            event.signer = signer
            return judge(
                line: number, event: event, signed: decoded, payload: decoded.isSigned ? nil : String(text),
                catalogue: catalogue, clock: clock, wallClock: wallClock)
        }
    }

    /// Judges an event already decoded and trusted (a simulation's, the demo's): the catalogue, the
    /// clocks and, for a signed line, the app's identity.
    public static func judge(
        line number: Int, event: SubscriptionEvent, signed: NotificationLine? = nil, payload: String? = nil,
        catalogue: Catalogue, clock: Instant, wallClock: Instant
    ) -> Judged {
        let product = event.transaction.flatMap { catalogue.products[$0.productId] }
        let app = product.flatMap { catalogue.apps[$0.appId] }
        var outcome = problem(with: event, product: product, bundleId: app?.bundleId, clock: clock, wallClock: wallClock)
        if outcome == nil, let app { outcome = identityProblem(with: event, signed: signed, app: app) }
        let stored: String
        if let payload {
            stored = payload
        } else {
            do {
                stored = try event.jsonLine()
            } catch {
                return Judged(line: number, verdict: .unreadable("the notification cannot be written back as JSON: \(error)"))
            }
        }
        return Judged(line: number, verdict: .event(event, product: product, payload: stored, problem: outcome))
    }

    /// Why a decoded notification cannot be imported as it is, or nil when it can.
    ///
    /// - Parameters:
    ///   - product: the catalogue's product for the transaction's `productId`, nil when unknown.
    ///   - bundleId: the bundle id of that product's app.
    ///   - clock: the store's clock (a demo or seeded store keeps one fixed until something moves it).
    ///   - wallClock: the real time of the import. Apple cannot have signed a notification after both:
    ///     a store's clock lagging the real world must not refuse real notifications signed yesterday,
    ///     and a clock the demo pushed ahead must not refuse the demo's own.
    public static func problem(
        with event: SubscriptionEvent, product: Product?, bundleId: String?, clock: Instant, wallClock: Instant
    ) -> Outcome? {
        guard let transaction = event.transaction else {
            return .skipped("\(event.appleName) carries no transaction: nothing to attach it to")
        }
        if let problem = idProblem(in: transaction) { return .rejected(problem) }
        guard let product else {
            return .rejected("unknown product '\(transaction.productId)': add it with storedesk catalog import FILE.storekit --app APP")
        }
        guard product.type == .autoRenewable else {
            return .skipped("\(product.id) is \(product.type.name), not an auto-renewable subscription")
        }
        let sentBundle = event.bundleId ?? transaction.bundleId
        if let sentBundle, let bundleId, sentBundle != bundleId {
            return .rejected("bundleId '\(sentBundle)' is not app \(product.appId)'s (\(bundleId))")
        }
        if event.signedDate > max(clock, wallClock) {
            return .rejected(
                "signed \(event.signedDate.iso8601), in the future: after both the store's clock \(clock.iso8601) "
                    + "and the wall clock \(wallClock.iso8601)")
        }
        if let problem = dateProblem(in: event) { return .rejected(problem) }
        return nil
    }

    /// Why the transaction's ids cannot be kept: a `transactionId`, `originalTransactionId` or
    /// `appAccountToken` holding a control character (a line break, an escape) would name a player, a
    /// chain and a ticket that no terminal, log line or search shows as it is. Apple's ids are digits and
    /// a UUID; nil when these are clean.
    static func idProblem(in transaction: TransactionInfo) -> String? {
        let ids: [(String, String?)] = [
            ("transactionId", transaction.transactionId), ("originalTransactionId", transaction.originalTransactionId),
            ("appAccountToken", transaction.appAccountToken),
        ]
        for case let (field, id?) in ids where ControlCharacters.contains(in: id) {
            return "\(field) '\(ControlCharacters.escaped(id))' holds a control character: an id is printable text"
        }
        return nil
    }

    /// Apple's app checks, after the signatures (`AppIdentityCheck`, part by part): a signed notification
    /// must name the app's bundle, its Apple ID in Production and an environment the app takes; a signed
    /// transaction the app's bundle and an environment the app takes; a signed renewal info an environment
    /// the app takes (and both the notification's, when it names one). A decoded (unsigned) notification
    /// is held to the app's environments when it names one. Nil when the line passes.
    public static func identityProblem(with event: SubscriptionEvent, signed: NotificationLine?, app: App) -> Outcome? {
        let environment = event.environment ?? event.transaction?.environment ?? event.renewal?.environment
        guard let signed, signed.isSigned, event.provenance != .simulated else {
            if let environment, StoreEnvironment(rawValue: environment) != nil,
                let refusal = AppIdentityCheck.environmentProblem(environment, app: app)
            {
                return .rejected(refusal)
            }
            return nil
        }
        if signed.signedPayload != nil {
            let claims = AppIdentityCheck.Claims(
                bundleId: event.bundleId, appAppleId: event.appAppleId, environment: event.environment)
            if let refusal = AppIdentityCheck.problem(claims, of: .notification, app: app) { return .rejected(refusal) }
        }
        if signed.signedTransaction != nil, let transaction = event.transaction {
            let claims = AppIdentityCheck.Claims(bundleId: transaction.bundleId, environment: transaction.environment)
            if let refusal = AppIdentityCheck.problem(claims, of: .transaction, app: app, notificationEnvironment: event.environment) {
                return .rejected("signedTransactionInfo: " + refusal)
            }
        }
        if signed.signedRenewal != nil, let renewal = event.renewal {
            let claims = AppIdentityCheck.Claims(environment: renewal.environment)
            if let refusal = AppIdentityCheck.problem(claims, of: .renewalInfo, app: app, notificationEnvironment: event.environment) {
                return .rejected("signedRenewalInfo: " + refusal)
            }
        }
        return nil
    }

    /// The player made for a subscription nobody in the store owns: named after its original
    /// transaction, an Apple account, created when it was first bought.
    public static func newOwner(originalTransactionId: String, firstPurchase: Instant) -> User {
        User(
            id: newOwnerId(originalTransactionId), name: originalTransactionId, friendlyName: "", idCard: "", phone: "",
            site: .apple, adultType: .unverified, fcm: false, authorizState: 0, safety: 0, clientId: "app-store-import",
            createdAt: firstPurchase)
    }

    /// `ot-2000000100000205`: the id of the player made for an unowned original transaction.
    public static func newOwnerId(_ originalTransactionId: String) -> String { "ot-" + originalTransactionId }
}
