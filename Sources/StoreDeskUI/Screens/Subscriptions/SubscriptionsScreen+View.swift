import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension SubscriptionsScreen {
    /// `grace`, `retry`: the list's short state names.
    static func shortName(_ state: SubscriptionState) -> String {
        switch state {
        case .active: "active"
        case .gracePeriod: "grace"
        case .billingRetry: "retry"
        case .expired: "expired"
        case .revoked: "refunded"
        }
    }

    /// The state bar's labels, widest that fits: `active 9`, `act 9`, then `●9` (the bullet in the state's colour).
    static func barLabels(_ counts: [SubscriptionState: Int], width: Int) -> [String] {
        let total = [" all \(counts.values.reduce(0, +)) "]
        let full = total + SubscriptionSearch.order.map { " \(shortName($0)) \(counts[$0] ?? 0) " }
        if full.joined().columns <= width { return full }
        let short = total + SubscriptionSearch.order.map { " \(shortName($0).prefix(3)) \(counts[$0] ?? 0) " }
        if short.joined().columns <= width { return short }
        return total + SubscriptionSearch.order.map { " ●\(counts[$0] ?? 0) " }
    }

    func renderList(into canvas: inout Canvas, rect: Rect, focused: Bool, now: Instant, zone: TimeZone) {
        var title = "Subscriptions · \(counts.values.reduce(0, +).formattedWithSeparators)"
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        if let demo { title += " · demo " + Self.rateText(demo.simulation.rate) + (demo.billingProblem ? ", billing fails" : "") }
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 2 else { return }
        // The state bar: every group with its count, the one shown highlighted; bullets alone when narrow.
        var x = inner.x + 1
        let end = inner.x + inner.width - 1
        let groups = [nil] + SubscriptionSearch.order.map { Optional($0) }
        for (group, label) in zip(groups, Self.barLabels(counts, width: end - x)) where x < end {
            let role: Role = group == state ? .tabActive : group.map { Role.of($0) } ?? .muted
            x += canvas.write(label, at: Point(x: x, y: inner.y), role: role, maxWidth: end - x)
        }
        let dateWidth = 10, stateWidth = 10
        let rest = max(4, inner.width - stateWidth - dateWidth - 5)
        let productWidth = rest >= 24 ? rest * 11 / 20 : rest
        let userWidth = rest - productWidth
        var header = " " + "STATE".padded(to: stateWidth) + " " + "EXPIRES".padded(to: dateWidth) + " " + "PRODUCT".padded(to: productWidth)
        if userWidth > 0 { header += " " + "PLAYER".padded(to: userWidth - 1) }
        canvas.writeLine(header, in: inner, row: 1, role: .listHeader)
        guard !rows.isEmpty else {
            let message = filter.isEmpty ? "no subscription " + (state.map { "in \($0.name)" } ?? "in this store") : "no subscription matches “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 3), role: .muted, maxWidth: inner.width - 2)
            return
        }
        for (i, row) in rows.enumerated() where i + 2 < inner.height {
            let y = inner.y + i + 2
            guard let info = row.subscription.info(at: now) else { continue }
            let chosen = i == selected
            let lineRole: Role = chosen ? (focused ? .listSelected : .listSelectedUnfocused) : .text
            canvas.writeLine("", in: inner, row: i + 2, role: lineRole)
            var x = inner.x + 1
            x += canvas.write("● " + Self.shortName(info.state).padded(to: stateWidth - 2), at: Point(x: x, y: y),
                              role: chosen ? lineRole : Role.of(info.state))
            var text = " " + info.expiresDate.dayText(in: zone) + " " + DetailText.shortProduct(info.productId).padded(to: productWidth)
            if userWidth > 0 { text += " " + row.userName.padded(to: userWidth - 1) }
            canvas.write(text, at: Point(x: x, y: y), role: lineRole, maxWidth: inner.x + inner.width - x)
        }
    }

    func renderDetail(into canvas: inout Canvas, rect: Rect, focused: Bool, now: Instant, zone: TimeZone) {
        canvas.frame(rect, title: "Subscription", role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard let detail, detail.row.subscription.id == selectedRow?.subscription.id else {
            if selectedRow != nil { canvas.write("loading…", at: Point(x: inner.x + 1, y: inner.y), role: .muted) }
            return
        }
        canvas.draw(detailLines(detail, now: now, zone: zone, width: inner.width - 2), in: inner, scroll: detailScroll)
    }

    func detailLines(_ detail: SubscriptionDetail, now: Instant, zone: TimeZone, width: Int) -> [[Span]] {
        let row = detail.row.subscription
        var text = DetailText(labelWidth: 13)
        text.line(Span(detail.row.userName, .title), Span("  user \(row.userId)", .muted))
        if let demo, demo.originalTransactionId == row.id {
            var driven = "driven live: " + Self.rateText(demo.simulation.rate)
            if demo.billingProblem { driven += " · renewals fail to bill" }
            if !demo.autoRenew { driven += " · auto-renew off" }
            text.field("demo", driven, .statusWarning)
        }
        text.field("original", row.id)
        text.field("product", row.productId)
        let snapshot = SubscriptionSnapshot(at: now, rows: [row], events: detail.events)
        guard let info = snapshot.subscription(originalTransactionId: row.id) else {
            text.field("state", "not bought yet at " + now.shortText(in: zone), .muted)
            return text.lines
        }
        text.field("group", (info.groupId ?? "-") + " · status \(info.appleStatus)")
        text.line([])
        text.subscription(info, events: [], zone: zone)
        text.line([])
        // A demo at an accelerated rate renews in seconds: its dates need them.
        let seconds = info.expiresDate.millis - info.purchaseDate.millis < 86_400_000
        let when = { (instant: Instant) in seconds ? instant.secondsText(in: zone) : instant.shortText(in: zone) }
        text.field("first bought", when(info.originalPurchaseDate))
        text.field("this period", when(info.purchaseDate) + " → " + when(info.expiresDate))
        if let grace = info.gracePeriodExpiresDate { text.field("grace ends", when(grace), .subscriptionGrace) }
        if let retry = info.billingRetryExpiresDate { text.field("retry ends", when(retry), .subscriptionRetry) }
        if let revoked = info.revocationDate {
            let kind = info.revocation == .familySharing ? "family sharing" : "refund"
            text.field("revoked", when(revoked) + " · " + kind + (info.revocationReason.map { " · \($0)" } ?? ""), .subscriptionRevoked)
        }
        if let pending = info.pendingProductId { text.field("renews as", pending) }
        text.field("access", info.isEntitled ? "yes" : "no", info.isEntitled ? .subscriptionActive : .subscriptionExpired)
        if !detail.events.isEmpty {
            // How far the notifications behind this row are trusted, and who signed the verified ones.
            let trust = TrustSummary(detail.events)
            text.field("trust", trust.text, DetailText.role(trust))
            for signer in trust.signers { text.wrapped("signed by", signer.description, width: width, .muted) }
        }
        let signed = SubscriptionTimeline(events: detail.events.filter { $0.signedDate <= now })
        text.heading(signed.events.isEmpty ? "Timeline: none (the stored row, played to now)" : "Timeline (\(signed.events.count))")
        var timeline = DetailText(labelWidth: 4)
        for (event, entry) in zip(signed.events, signed.entries) {
            timeline.timelineLine(event, zone: zone, dateWidth: 16)
            timeline.wrapped("", entry.summary, width: width, .muted)
        }
        for line in timeline.lines { text.line(line) }
        return text.lines
    }
}
