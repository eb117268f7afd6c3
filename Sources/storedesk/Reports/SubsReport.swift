import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `subs --json`: the subscription component's answers under their own names, and Apple's per-group status.
struct SubsJSON: Encodable {
    struct Group: Encodable {
        var subscriptionGroupIdentifier: String
        var status: Int
        var state: String
    }

    struct ProductValidity: Encodable {
        var productId: String
        var valid: Bool
    }

    var user: UserJSON
    var at: String
    var unlocked: Bool
    var inGracePeriod: Bool
    @NullWhenAbsent var originalTransactionDate: String?
    @NullWhenAbsent var currentExpiresDate: String?
    @NullWhenAbsent var gracePeriodExpiresDate: String?
    @NullWhenAbsent var latest: InfoJSON?
    var valid: [InfoJSON]
    var all: [InfoJSON]
    var groups: [Group]
    @NullWhenAbsent var product: ProductValidity?
    var events: [EventJSON]

    init(user: User, snapshot: SubscriptionSnapshot, product: String?, timeline: SubscriptionTimeline) {
        self.user = UserJSON(user)
        at = snapshot.instant.iso8601
        unlocked = snapshot.unlocked
        inGracePeriod = snapshot.inGracePeriod
        originalTransactionDate = snapshot.originalTransactionDate?.iso8601
        currentExpiresDate = snapshot.currentExpiresDate?.iso8601
        gracePeriodExpiresDate = snapshot.gracePeriodExpiresDate?.iso8601
        latest = snapshot.latest.map(InfoJSON.init)
        valid = snapshot.valid.map(InfoJSON.init)
        all = snapshot.all.map(InfoJSON.init)
        groups = snapshot.groups.map {
            Group(subscriptionGroupIdentifier: $0.groupId, status: $0.state.appleStatus, state: $0.state.rawValue)
        }
        self.product = product.map { ProductValidity(productId: $0, valid: snapshot.isProductValid($0)) }
        events = timeline.events.map(EventJSON.init)
    }

    /// One subscription at the instant, under Apple's field names where Apple has one.
    struct InfoJSON: Encodable {
        var originalTransactionId, transactionId, productId, state, autoRenewProductId: String
        @NullWhenAbsent var subscriptionGroupIdentifier: String?
        var status, autoRenewStatus: Int
        var entitled: Bool
        var originalPurchaseDate, purchaseDate, expiresDate: String
        @NullWhenAbsent var gracePeriodExpiresDate: String?
        @NullWhenAbsent var billingRetryExpiresDate: String?
        @NullWhenAbsent var expirationIntent: Int?
        @NullWhenAbsent var revocation: String?
        @NullWhenAbsent var revocationDate: String?
        @NullWhenAbsent var revocationReason: Int?
        @NullWhenAbsent var offerType: Int?
        @NullWhenAbsent var offerIdentifier: String?
        @NullWhenAbsent var offerDiscountType: String?
        @NullWhenAbsent var environment: String?

        init(_ info: SubscriptionInfo) {
            originalTransactionId = info.originalTransactionId
            transactionId = info.transactionId
            productId = info.productId
            state = info.state.rawValue
            autoRenewProductId = info.autoRenewProductId
            subscriptionGroupIdentifier = info.groupId
            status = info.appleStatus
            autoRenewStatus = info.autoRenew ? 1 : 0
            entitled = info.isEntitled
            originalPurchaseDate = info.originalPurchaseDate.iso8601
            purchaseDate = info.purchaseDate.iso8601
            expiresDate = info.expiresDate.iso8601
            gracePeriodExpiresDate = info.gracePeriodExpiresDate?.iso8601
            billingRetryExpiresDate = info.billingRetryExpiresDate?.iso8601
            expirationIntent = info.expirationIntent?.rawValue
            revocation = info.revocation?.rawValue
            revocationDate = info.revocationDate?.iso8601
            revocationReason = info.revocationReason?.rawValue
            offerType = info.offerType?.rawValue
            offerIdentifier = info.offerId
            offerDiscountType = info.offerDiscountType?.rawValue
            environment = info.environment
        }
    }

    /// One notification on the timeline, named as Apple names it, with how far it is trusted.
    struct EventJSON: Encodable {
        var notificationUUID, name, signedDate, summary: String
        /// `verified`, `decoded_json`, `unverified_jws`, `storekit_testing` or `simulated`.
        var provenance: String
        /// Whether the App Store's signature was verified.
        var verified: Bool
        /// The same in words (`verified: signed by ... under Apple Root CA - G3`, `signed, NOT verified`).
        var trust: String
        /// Who signed it, when verified: the root it chained to and the leaf's subject and serial.
        @NullWhenAbsent var signer: SignerJSON?
        @NullWhenAbsent var originalTransactionId: String?
        @NullWhenAbsent var productId: String?

        struct SignerJSON: Encodable {
            var rootSHA256, rootSubject, leafSubject, leafSerial: String
            var rootIsAppleRootCAG3: Bool
        }

        init(_ event: SubscriptionEvent) {
            let entry = TimelineEntry(event)
            notificationUUID = entry.id
            name = entry.name
            signedDate = entry.date.iso8601
            summary = entry.summary
            provenance = event.provenance.rawValue
            verified = event.provenance.isVerified
            trust = event.trustDescription
            signer = event.signer.map {
                SignerJSON(
                    rootSHA256: $0.rootSHA256, rootSubject: $0.rootSubject, leafSubject: $0.leafSubject, leafSerial: $0.leafSerial,
                    rootIsAppleRootCAG3: $0.isApple)
            }
            originalTransactionId = entry.originalTransactionId
            productId = entry.productId
        }
    }
}

/// `subs`: a player's subscriptions at an instant, each group's status, and the notifications so far.
struct SubsReport: CommandReport {
    var owner: User
    var snapshot: SubscriptionSnapshot
    var timeline: SubscriptionTimeline
    var instant: Instant
    var product: String?
    var zone: TimeZone
    /// `--chart`: each subscription's bar, newest first as the text lists them, at the chart's width.
    var charts: [(info: SubscriptionInfo, bar: TimelineBar, width: Int)] = []
    var glyphs: TimelineBar.Glyphs = .unicode

    /// The bars of the subscriptions in `snapshot`, drawn up to `clock`, each `width` columns.
    static func charts(_ rows: [Subscription], _ events: [SubscriptionEvent], snapshot: SubscriptionSnapshot, clock: Instant, width: Int)
        -> [(info: SubscriptionInfo, bar: TimelineBar, width: Int)]
    {
        let signed = events.filter { $0.signedDate <= clock }
        return snapshot.all.reversed().compactMap { info in
            TimelineBar(rows: rows, events: signed, originalTransactionId: info.originalTransactionId, clock: clock, width: width)
                .map { (info, $0, width) }
        }
    }

    var json: SubsJSON { SubsJSON(user: owner, snapshot: snapshot, product: product, timeline: timeline) }

    var text: String {
        var lines: [String] = []
        func out(_ line: String) { lines.append(line) }
        let spoken = { (date: Instant) in date.spokenText(in: zone) }
        let aloud = { (date: Instant) in spoken(date) + " (" + date.relativeText(from: instant) + ")" }
        func field(_ label: String, _ value: String) { out("  " + label.padding(toLength: 18, withPad: " ", startingAt: 0) + value) }
        out("\(owner.displayName) (\(owner.id)) at \(spoken(instant))")
        let valid = snapshot.valid.count
        field("unlocked", snapshot.unlocked ? "yes (\(valid) valid subscription\(valid == 1 ? "" : "s"))" : "no")
        field("in grace period", snapshot.inGracePeriod ? "yes: ask the player to fix their payment method" : "no")
        field("first subscribed", snapshot.originalTransactionDate.map(spoken) ?? "-")
        field("current expiry", snapshot.currentExpiresDate.map(aloud) ?? "-")
        field("grace period ends", snapshot.gracePeriodExpiresDate.map(aloud) ?? "-")
        let groups = snapshot.groups.map { "\($0.groupId): \($0.state.name) (\($0.state.appleStatus))" }
        field("groups", groups.isEmpty ? "-" : groups.joined(separator: ", "))
        if let product { field("product", "\(product): " + (snapshot.isProductValid(product) ? "valid" : "not valid")) }
        for info in snapshot.all.reversed() {
            out("")
            out("  ● \(info.state.name)  \(info.productId)  (original transaction \(info.originalTransactionId))")
            out("      " + info.standing(aloud))
            out("      first bought \(spoken(info.originalPurchaseDate)); this period began \(spoken(info.purchaseDate))")
            out("      auto-renew \(info.autoRenew ? "on" : "off")" + (info.offerText.map { "; offer: " + $0 } ?? "")
                + "; access: " + (info.isEntitled ? "yes" : "no"))
        }
        let entries = timeline.entries
        if !entries.isEmpty {
            out("")
            out("  timeline (\(entries.count) notification\(entries.count == 1 ? "" : "s"))")
            let width = entries.map(\.name.count).max() ?? 0
            for (entry, event) in zip(entries, timeline.events) {
                out(
                    "    \(entry.date.shortText(in: zone))  \(entry.name.padding(toLength: width, withPad: " ", startingAt: 0))  "
                        + "\(entry.summary)  [\(event.trustMark)]")
            }
        }
        for chart in charts {
            out("")
            out("  chart  \(chart.info.productId)  (original transaction \(chart.info.originalTransactionId))")
            for line in chart.bar.lines(width: chart.width, glyphs: glyphs, zone: zone) { out("    " + line) }
        }
        return reportText(lines)
    }
}
