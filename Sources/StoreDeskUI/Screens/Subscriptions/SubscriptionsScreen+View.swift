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

    /// The state bar's labels, each state named with its count, one space apart, the widest form that
    /// fits: `active 12,190`, then `act 12,190`, then `all`, the one shown and the others in order while
    /// they fit, and `…`. Never colour alone, so NO_COLOR reads the same.
    static func barLabels(_ counts: [SubscriptionState: Int], shown: SubscriptionState?, width: Int) -> [(SubscriptionState?, String)] {
        let groups = [nil] + SubscriptionSearch.order.map { Optional($0) }
        func label(_ group: SubscriptionState?, short: Bool) -> String {
            let count = group.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +)
            let name = group.map { short ? String(shortName($0).prefix(3)) : shortName($0) } ?? "all"
            return "\(name) \(count.formattedWithSeparators)"
        }
        func fits(_ labels: [(SubscriptionState?, String)]) -> Bool { labels.reduce(-1, { $0 + 1 + $1.1.columns }) <= width }
        for short in [false, true] {
            let labels = groups.map { ($0, label($0, short: short)) }
            if fits(labels) { return labels }
        }
        // `all`, the one shown, then the others in order while they fit with the `…` after them.
        var labels: [(SubscriptionState?, String)] = []
        let ordered = [nil] + [shown].filter { $0 != nil } + groups.filter { $0 != nil && $0 != shown }
        for group in ordered {
            let candidate = labels + [(group, label(group, short: true)), (nil, "…")]
            guard fits(candidate) else { break }
            labels.append((group, label(group, short: true)))
        }
        return labels + [(nil, "…")]
    }

    /// The date a row ends on, as its state means it: a grace row its grace end, a billing retry its
    /// retry end, a refunded row its refund, any other its expiry (or renewal).
    static func endDate(_ info: SubscriptionInfo) -> Instant {
        switch info.state {
        case .gracePeriod: info.gracePeriodExpiresDate ?? info.expiresDate
        case .billingRetry: info.billingRetryExpiresDate ?? info.expiresDate
        case .revoked: info.revocationDate ?? info.expiresDate
        case .active, .expired: info.expiresDate
        }
    }

    /// The list's columns, most important first: the state and the date it ends on, the player, the
    /// product; a wide terminal adds the player's id, the original transaction and auto-renew. While a
    /// filter is on, MATCHED says which of the ids it looks in (in any case, as LIKE) held it.
    static func columns(zone: TimeZone, filter: String = "") -> [ListColumn<(row: SubscriptionListRow, info: SubscriptionInfo)>] {
        let text = filter.trimmingCharacters(in: .whitespaces)
        var matched = MatchedFields<(row: SubscriptionListRow, info: SubscriptionInfo)>()
        matched.contains("transaction", text, ignoringCase: true) { $0.row.subscription.id }
        matched.contains("user", text, ignoringCase: true) { $0.row.subscription.userId }
        matched.contains("product", text, ignoringCase: true) { $0.row.subscription.productId }
        return [
            ListColumn("STATE", priority: 1, width: 10) { "● " + shortName($0.info.state) },
            ListColumn("ENDS", priority: 2, width: 10) { endDate($0.info).dayText(in: zone) },
        ] + matched.column(priority: 4) + [
            ListColumn("PRODUCT", priority: 5, min: 12, ideal: 20, grows: true) { DetailText.shortProduct($0.info.productId) },
            // Whose it is comes before which field a filter matched (a list of "product" says little);
            // it takes a short name's width first, and grows with what the other columns leave.
            ListColumn("PLAYER", priority: 3, min: 8, ideal: 10, grows: true) { $0.row.userName },
            ListColumn("USER", priority: 6, min: 8, ideal: 9) { $0.row.subscription.userId },
            ListColumn("ORIGINAL TRANSACTION", priority: 7, width: 20) { $0.info.originalTransactionId },
            ListColumn("RENEWS", priority: 8, width: 6) { $0.info.autoRenew ? "on" : "off" },
        ]
    }

    func renderList(into canvas: inout Canvas, rect: Rect, focused: Bool, now: Instant, zone: TimeZone) {
        // The count of what the list shows: the state chosen with `s`, or every state.
        let shownCount = state.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +)
        var title = "Subscriptions · " + (state.map { Self.shortName($0) + " " } ?? "") + list.positionText(count: .exact(shownCount))
        if sort != ListSort("ends") { title += " · " + sort.label }
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        if sendQueue.pending + sendQueue.failed > 0 {
            title += " · sends \(sendQueue.pending) pending" + (sendQueue.failed > 0 ? ", \(sendQueue.failed) failed" : "")
        }
        if let demo { title += " · demo " + Self.rateText(demo.simulation.rate) + (demo.billingProblem ? ", billing fails" : "") }
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 2 else { return }
        // The state bar: every group named with its count, the one shown highlighted.
        var x = inner.x + 1
        let end = inner.x + inner.width - 1
        for (group, label) in Self.barLabels(counts, shown: state, width: end - x) where x < end {
            let role: Role = group == state && label != "…" ? .tabActive : group.map { Role.of($0) } ?? .muted
            x += canvas.write(label, at: Point(x: x, y: inner.y), role: role, maxWidth: end - x) + 1
        }
        // Each visible row's standing, worked out once a frame: the columns fit them and the lines show them.
        let shown = rows.prefix(max(0, inner.height - 2)).enumerated().compactMap { i, row in
            row.subscription.info(at: now).map { (index: i, row: row, info: $0) }
        }
        let columns = ColumnLayout(Self.columns(zone: zone, filter: filter), width: inner.width, fitting: shown.map { ($0.row, $0.info) })
        canvas.writeLine(columns.header, in: inner, row: 1, role: .listHeader)
        guard !rows.isEmpty else {
            let message = filter.isEmpty ? "no subscription " + (state.map { "in \($0.name)" } ?? "in this store") : "no subscription matches “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 3), role: .muted, maxWidth: inner.width - 2)
            return
        }
        let stateX = columns.offset(of: "STATE")
        for (i, row, info) in shown {
            let chosen = i == selected
            let lineRole: Role = chosen ? (focused ? .listSelected : .listSelectedUnfocused) : .text
            let line = columns.line((row, info))
            canvas.writeLine(line, in: inner, row: i + 2, role: lineRole)
            // The state's word in its colour (the line's own when selected).
            if let stateX, !chosen {
                canvas.write(("● " + Self.shortName(info.state)).padded(to: 10), at: Point(x: inner.x + stateX, y: inner.y + i + 2), role: Role.of(info.state))
            }
        }
    }

    func renderDetail(into canvas: inout Canvas, rect: Rect, focused: Bool, now: Instant, zone: TimeZone, glyphs: TimelineBar.Glyphs) {
        canvas.frame(rect, title: "Subscription", role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard let detail, detail.row.subscription.id == selectedRow?.subscription.id else {
            if selectedRow != nil { canvas.write("loading…", at: Point(x: inner.x + 1, y: inner.y), role: .muted) }
            return
        }
        canvas.draw(detailLines(detail, now: now, zone: zone, width: inner.width - 2, glyphs: glyphs), in: inner, scroll: detailScroll)
    }

    /// A support action as its pane says it: `li.na (support): app crashed at launch`, or for an extension
    /// `li.na (support): 14 days, Apple's reason 3 (service issue or outage)`.
    static func actionText(_ entry: AuditEntry) -> String {
        let who = "\(entry.actor) (\(entry.role))"
        switch AppleSupportWrites.why(entry) {
        case .typed(let reason): return who + ": " + reason
        case .extended(let days, let code):
            return who + ": \(days) day\(days == 1 ? "" : "s"), Apple's reason \(code) (\(extendReasonName(code)))"
        case nil: return who
        }
    }

    func detailLines(_ detail: SubscriptionDetail, now: Instant, zone: TimeZone, width: Int, glyphs: TimelineBar.Glyphs = .unicode) -> [[Span]] {
        let row = detail.row.subscription
        var text = DetailText(labelWidth: 13)
        text.line(Span(detail.row.userName, .title), Span("  user \(row.userId)", .muted))
        if let demo, demo.originalTransactionId == row.id {
            var driven = ["driven live: " + Self.rateText(demo.simulation.rate)]
            if demo.billingProblem { driven.append("renewals fail to bill") }
            if !demo.autoRenew { driven.append("auto-renew off") }
            text.field("demo", driven, width: width, .statusWarning)
        }
        // Ids and dates wrap whole (a product id wider than the value's column on a line of its own).
        text.field("original", [row.id], width: width)
        text.field("product", [row.productId], width: width)
        let snapshot = SubscriptionSnapshot(at: now, rows: [row], events: detail.events)
        guard let info = snapshot.subscription(originalTransactionId: row.id) else {
            text.field("state", "not bought yet at " + now.shortText(in: zone), .muted)
            return text.lines
        }
        text.field("group", [info.groupId ?? "-", info.state.name], width: width)
        if let bar = TimelineBar(rows: [row], events: detail.events, originalTransactionId: row.id, clock: now, width: width) {
            text.line([])
            text.timelineBar(bar, width: width, glyphs: glyphs, zone: zone)
        }
        text.line([])
        text.subscription(info, events: [], zone: zone, width: width)
        text.line([])
        // A demo at an accelerated rate renews in seconds: its dates need them.
        let seconds = info.expiresDate.millis - info.purchaseDate.millis < 86_400_000
        let when = { (instant: Instant) in seconds ? instant.secondsText(in: zone) : instant.shortText(in: zone) }
        text.field("first bought", [when(info.originalPurchaseDate)], width: width)
        // One part: "A → B" stays whole (on a line of its own when the value's column is too narrow).
        text.field("this period", [when(info.purchaseDate) + " → " + when(info.expiresDate)], width: width)
        if let grace = info.gracePeriodExpiresDate { text.field("grace ends", when(grace), .subscriptionGrace) }
        if let retry = info.billingRetryExpiresDate { text.field("retry ends", when(retry), .subscriptionRetry) }
        if let revoked = info.revocationDate {
            let kind = info.revocation == .familySharing ? "family sharing" : "refund"
            text.field("revoked", [when(revoked), kind] + (info.revocationReason.map { ["\($0)"] } ?? []), width: width, .subscriptionRevoked)
            // A support refund: who did it and the reason as typed (the audit log's line).
            let refund = detail.events.last { $0.notificationType == .refund && $0.signedDate <= now }
            if let refund, let action = detail.actions[refund.notificationUUID] {
                text.paragraph("refunded by", Self.actionText(action), width: width, .subscriptionRevoked)
            }
        }
        if let pending = info.pendingProductId { text.field("renews as", [pending], width: width) }
        text.field("access", info.isEntitled ? "yes" : "no", info.isEntitled ? .subscriptionActive : .subscriptionExpired)
        if !detail.events.isEmpty {
            // How far the notifications behind this row are trusted, and who signed the verified ones.
            let trust = TrustSummary(detail.events)
            text.field("trust", trust.text, DetailText.role(trust))
            for signer in trust.signers { text.wrapped("signed by", signer.description, width: width, .muted) }
        }
        let signed = SubscriptionTimeline(events: detail.events.filter { $0.signedDate <= now })
        text.heading("Timeline (\(signed.events.count))")
        if signed.events.isEmpty {
            text.paragraph("", "no notification yet: the state shown is the store's record, played forward to the store clock", width: width, .muted)
        }
        var timeline = DetailText(labelWidth: 4)
        for (event, entry) in zip(signed.events, signed.entries) {
            timeline.timelineLine(event, zone: zone, dateWidth: 16)
            timeline.wrapped("", entry.summary, width: width, .muted)
            if let action = detail.actions[event.notificationUUID] { timeline.paragraph("", Self.actionText(action), width: width, .detailValue) }
        }
        for line in timeline.lines { text.line(line) }
        return text.lines
    }
}
