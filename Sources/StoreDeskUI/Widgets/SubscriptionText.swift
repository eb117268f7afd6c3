import Foundation
import StoreDeskCore

/// Subscriptions as detail panes show them, at the console's clock: a state badge in the theme's
/// subscription roles, what happens next, the offer, whether it gives access, and the notifications
/// behind it under Apple's names. Computed from the rows and notifications at every frame, so the panes
/// move as the clock ticks; the timeline bars, which sample a state a column, are made in update
/// (`SubscriptionBars`) and only drawn here.
extension DetailText {
    /// A player's subscriptions: whether they have access at all, each group's status, then each subscription.
    /// With `chart`, each subscription's timeline bar (made beforehand, `SubscriptionBars`; drawn that wide,
    /// in those glyphs) under its lines.
    public mutating func subscriptions(
        rows: [Subscription], events: [SubscriptionEvent], at now: Instant, zone: TimeZone,
        chart: (bars: SubscriptionBars, width: Int, glyphs: TimelineBar.Glyphs)? = nil
    ) {
        let snapshot = SubscriptionSnapshot(at: now, rows: rows, events: events)
        heading("Subscriptions (\(snapshot.all.count))")
        guard !snapshot.all.isEmpty else { return }
        let day = { (instant: Instant) in instant.dayText(in: zone) }
        if snapshot.inGracePeriod {
            field("access", "unlocked, grace period until " + (snapshot.gracePeriodExpiresDate.map(day) ?? "-"), .subscriptionGrace)
        } else {
            field("access", snapshot.unlocked ? "unlocked" : "locked", snapshot.unlocked ? .subscriptionActive : .subscriptionExpired)
        }
        for group in snapshot.groups {
            line(
                Span("group".padded(to: labelWidth), .detailLabel), Span(group.groupId + " ", .detailValue),
                Span(group.state.name, Role.of(group.state)))
        }
        let signed = events.filter { $0.signedDate <= now }
        for info in snapshot.all.sorted(by: { ($0.expiresDate, $0.originalTransactionId) > ($1.expiresDate, $1.originalTransactionId) }) {
            let own = SubscriptionTimeline(events: signed.filter { $0.originalTransactionId == info.originalTransactionId })
            subscription(info, events: own.events, zone: zone, width: chart?.width)
            if let chart, chart.width > 2, let bar = chart.bars[info.originalTransactionId] {
                timelineBar(bar, width: chart.width - 2, glyphs: chart.glyphs, zone: zone, indent: 2)
            }
        }
    }

    /// One subscription in a few lines: badge and product, what happens next, the facts, the timeline.
    /// Given the pane's `width`, the facts wrap between their parts instead of being cut.
    public mutating func subscription(_ info: SubscriptionInfo, events: [SubscriptionEvent], zone: TimeZone, width: Int? = nil) {
        let day = { (instant: Instant) in instant.dayText(in: zone) }
        line(Span(("● " + info.state.name).padded(to: 17), Role.of(info.state)), Span(Self.shortProduct(info.productId), .detailValue))
        // What happens next, broken at spaces when the pane is narrow: a date is never cut (`2026-11-…`).
        let standing = info.standing(day, product: Self.shortProduct)
        for chunk in width.map({ TextWrap.lines(standing, width: max(8, $0 - 2)) }) ?? [standing] { line(Span("  " + chunk, .text)) }
        let access = info.isEntitled ? "access: " + Self.shortProduct(info.productId) : "no access"
        let facts = ["  since \(day(info.originalPurchaseDate))", "auto-renew \(info.autoRenew ? "on" : "off")", access]
        if let width {
            line(parts: facts.map { [Span($0, .muted)] }, width: width, indent: "  ")
        } else {
            line(Span(facts.joined(separator: " · "), .muted))
        }
        if let offer = info.offerText {
            for chunk in width.map({ TextWrap.lines("offer: " + offer, width: max(8, $0 - 2)) }) ?? ["offer: " + offer] { line(Span("  " + chunk, .muted)) }
        }
        if !events.isEmpty {
            let trust = TrustSummary(events)
            line(Span("  notifications: ", .muted), Span(trust.text, Self.role(trust)))
        }
        for event in events { timelineLine(event, zone: zone, dateWidth: 10) }
    }

    /// `2026-10-05 ✓ DID_FAIL_TO_RENEW/GRACE_PERIOD`, marked by how far it is trusted: a check for a
    /// verified signature, a word for anything else, never nothing, and before the name so a narrow pane
    /// clips the name, not the mark: an unverified event never looks like a verified one.
    mutating func timelineLine(_ event: SubscriptionEvent, zone: TimeZone, dateWidth: Int) {
        let date = dateWidth > 10 ? event.signedDate.shortText(in: zone) : event.signedDate.dayText(in: zone)
        line([Span("  " + date + " ", .muted), Self.trustMark(event), Span(" " + event.appleName, .detailValue)])
    }

    /// How a subscription's notifications read together: green when all are verified, a warning when some
    /// are decoded or from StoreKit testing, an error when some came signed but were not verified.
    static func role(_ trust: TrustSummary) -> Role {
        switch trust.weakest {
        case .unverifiedJWS: .statusError
        case .decodedJSON, .storeKitTesting: .statusWarning
        case .verified: .statusSuccess
        case .simulated, nil: .muted
        }
    }

    /// The mark beside an event on a timeline. A chain to a root other than Apple's (the demo's, a test
    /// CA) is marked `✓ test CA`: verified, but not by Apple. The store's record of a chain before its
    /// first notification is marked so, not "simulated".
    static func trustMark(_ event: SubscriptionEvent) -> Span {
        if event.isStoreRecord { return Span("store record", .muted) }
        if event.isSupportAction { return Span("support", .muted) }
        return switch event.provenance {
        case .verified: Span(event.signer?.isApple == true ? "✓" : "✓ test CA", .statusSuccess)
        case .decodedJSON: Span("decoded", .statusWarning)
        case .unverifiedJWS: Span("UNVERIFIED", .statusError)
        case .storeKitTesting: Span("StoreKit test", .statusWarning)
        case .simulated: Span("simulated", .muted)
        }
    }

    /// `vip.monthly` for `com.storedesk.starvoyage.vip.monthly`: the last two parts, as the panes show products.
    public static func shortProduct(_ id: String) -> String {
        // Not `suffix(2).joined(separator:)`: that generic runs unspecialized from the standard library,
        // and its first call had the runtime scan every protocol conformance in the binary.
        let parts = id.split(separator: ".").suffix(2).map(String.init)
        return parts.count == 2 ? parts[0] + "." + parts[1] : parts.first ?? ""
    }
}
