import Foundation
import StoreDeskCore

/// Subscriptions as detail panes show them, at the console's clock: a state badge in the theme's
/// subscription roles, what happens next, the offer, whether it gives access, and the notifications
/// behind it under Apple's names. Computed from the rows and notifications at every frame, so the panes
/// move as the clock ticks.
extension DetailText {
    /// A player's subscriptions: whether they have access at all, each group's status, then each subscription.
    public mutating func subscriptions(rows: [Subscription], events: [SubscriptionEvent], at now: Instant, zone: TimeZone) {
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
                Span("\(group.state.appleStatus) \(group.state.name)", Role.of(group.state)))
        }
        let signed = events.filter { $0.signedDate <= now }
        for info in snapshot.all.sorted(by: { ($0.expiresDate, $0.originalTransactionId) > ($1.expiresDate, $1.originalTransactionId) }) {
            let own = SubscriptionTimeline(events: signed.filter { $0.originalTransactionId == info.originalTransactionId })
            subscription(info, events: own.events, zone: zone)
        }
    }

    /// One subscription in a few lines: badge and product, what happens next, the facts, the timeline.
    public mutating func subscription(_ info: SubscriptionInfo, events: [SubscriptionEvent], zone: TimeZone) {
        let day = { (instant: Instant) in instant.dayText(in: zone) }
        line(Span(("● " + info.state.name).padded(to: 17), Role.of(info.state)), Span(Self.shortProduct(info.productId), .detailValue))
        line(Span("  " + info.standing(day, product: Self.shortProduct), .text))
        let access = info.isEntitled ? "access: " + Self.shortProduct(info.productId) : "no access"
        line(Span("  since \(day(info.originalPurchaseDate)) · auto-renew \(info.autoRenew ? "on" : "off") · \(access)", .muted))
        if let offer = info.offerText { line(Span("  offer: " + offer, .muted)) }
        for event in events { timelineLine(event, zone: zone, dateWidth: 10) }
    }

    /// `2026-10-05 DID_FAIL_TO_RENEW/GRACE_PERIOD`, and a warning when it came signed but unverified.
    mutating func timelineLine(_ event: SubscriptionEvent, zone: TimeZone, dateWidth: Int) {
        let date = dateWidth > 10 ? event.signedDate.shortText(in: zone) : event.signedDate.dayText(in: zone)
        var spans = [Span("  " + date + " ", .muted), Span(event.appleName, .detailValue)]
        if event.provenance == .unverifiedJWS { spans.append(Span(" unverified", .statusWarning)) }
        line(spans)
    }

    /// `vip.monthly` for `com.storedesk.starvoyage.vip.monthly`: the last two parts, as the panes show products.
    public static func shortProduct(_ id: String) -> String { id.split(separator: ".").suffix(2).joined(separator: ".") }
}
