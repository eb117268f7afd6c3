import Foundation
import StoreDeskCore
import StoreDeskStore

extension UsersScreen {
    func renderList(into canvas: inout Canvas, rect: Rect, focused: Bool, filter: String, filtering: Bool) {
        var title = "Users"
        if let total { title += " · \(total.formattedWithSeparators)" }
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        if let scanProgress { title += " · searching \(Int(scanProgress * 100))%" }
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        let idWidth = 9, siteWidth = 8
        let nameWidth = max(4, inner.width - idWidth - siteWidth - 4)
        let header = " " + "ID".padded(to: idWidth) + " " + "NAME".padded(to: nameWidth) + " " + "TYPE".padded(to: siteWidth)
        canvas.writeLine(header, in: inner, row: 0, role: .listHeader)
        if rows.isEmpty && scanProgress != nil {
            canvas.write("searching…", at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
            return
        }
        if rows.isEmpty {
            let message = filter.isEmpty ? "no users in this store" : "no user matches “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
            return
        }
        for (i, row) in rows.enumerated() where i + 1 < inner.height {
            let u = row.user
            let name = u.isGuest ? "(guest)" : u.displayName
            let line = " " + u.id.padded(to: idWidth) + " " + name.padded(to: nameWidth) + " " + u.site.name.padded(to: siteWidth)
            let role: Role = i == selected ? (focused ? .listSelected : .listSelectedUnfocused) : (u.isGuest ? .muted : .text)
            canvas.writeLine(line, in: inner, row: i + 1, role: role)
        }
    }

    func renderDetail(into canvas: inout Canvas, rect: Rect, focused: Bool, zone: TimeZone, now: Instant) {
        canvas.frame(rect, title: "Profile", role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard let profile, profile.user.id == selectedRow?.user.id else {
            if selectedRow != nil {
                canvas.write("loading…", at: Point(x: inner.x + 1, y: inner.y), role: .muted)
            }
            return
        }
        let lines = detailLines(profile, zone: zone, now: now)
        let scroll = min(detailScroll, max(0, lines.count - inner.height))
        for (row, line) in lines.dropFirst(scroll).prefix(inner.height).enumerated() {
            var x = inner.x + 1
            let y = inner.y + row
            for span in line {
                x += canvas.write(span.text, at: Point(x: x, y: y), role: span.role, maxWidth: inner.x + inner.width - 1 - x)
            }
        }
    }

    struct Span {
        var text: String
        var role: Role
    }

    func detailLines(_ p: UserProfile, zone: TimeZone, now: Instant) -> [[Span]] {
        let u = p.user
        var lines: [[Span]] = []
        func field(_ label: String, _ value: String, _ role: Role = .detailValue) {
            lines.append([Span(text: label.padded(to: 15), role: .detailLabel), Span(text: value, role: role)])
        }
        func heading(_ text: String) {
            lines.append([])
            lines.append([Span(text: text, role: .title)])
        }
        lines.append([Span(text: u.displayName, role: .title)] + (u.isGuest ? [Span(text: "  guest", role: .muted)] : []))
        field("id", u.id)
        field("name", u.name)
        field("friendly name", u.friendlyName.isEmpty ? "-" : u.friendlyName)
        field("account type", "\(u.site.name) (site \(u.site.rawValue))")
        field("age band", u.adultType.name)
        field("anti-addiction", u.fcm ? "applies" : "does not apply")
        field("real name", u.isRealNameVerified ? "verified" : "not verified")
        if u.phone.isEmpty {
            field("phone", "-")
        } else if revealed.contains(u.id) {
            field("phone", u.phone + "  (revealed)", .statusWarning)
        } else {
            field("phone", u.maskedPhone, .masked)
        }
        field("ID card", u.idCard.isEmpty ? "-" : u.idCard, u.idCard.isEmpty ? .detailValue : .masked)
        field("client", u.clientId)
        field("created", u.createdAt.shortText(in: zone))

        heading("Game accounts (\(p.gameAccounts.count))")
        for a in p.gameAccounts {
            lines.append([
                Span(text: "\(a.appId) \(a.sid)/\(a.roleId) ", role: .detailValue), Span(text: a.roleName, role: .text),
                Span(text: "  \(a.appleId)", role: .muted),
            ])
        }
        heading("Subscriptions (\(p.subscriptions.count))")
        for s in p.subscriptions {
            lines.append([
                Span(text: "● " + s.state.name.padded(to: 13), role: Self.role(for: s.state)),
                Span(text: s.productId, role: .detailValue),
            ])
            let until = s.state == .revoked
                ? "revoked " + (s.revocationDate?.dayText(in: zone) ?? "-") + " (" + (s.revocationReason ?? "-") + ")"
                : (s.expiresDate < now ? "expired " : "renews ") + s.expiresDate.dayText(in: zone)
                    + (s.autoRenew ? "" : " · auto-renew off")
            lines.append([Span(text: "  " + until + (s.offerType.map { " · offer: \($0)" } ?? ""), role: .muted)])
        }
        heading("Transactions (\(p.transactionCount), \(p.openRestoreRequests) open restore)")
        for t in p.recentTransactions {
            let product = t.productId.split(separator: ".").suffix(2).joined(separator: ".")
            lines.append([
                Span(text: t.purchaseDate.dayText(in: zone) + " ", role: .muted),
                Span(text: t.state.rawValue.padded(to: 11), role: Self.role(for: t.state)),
                Span(text: product + (t.finished ? "" : " (unfinished)"), role: .detailValue),
            ])
        }
        return lines
    }

    static func role(for state: SubscriptionState) -> Role {
        switch state {
        case .active: .subscriptionActive
        case .gracePeriod: .subscriptionGrace
        case .billingRetry: .subscriptionRetry
        case .expired: .subscriptionExpired
        case .revoked: .subscriptionRevoked
        }
    }

    static func role(for state: TransactionState) -> Role {
        switch state {
        case .purchasing: .statePurchasing
        case .purchased: .statePurchased
        case .failed: .stateFailed
        case .restored: .stateRestored
        case .deferred: .stateDeferred
        }
    }
}

extension Int {
    /// `1,000,000`.
    public var formattedWithSeparators: String {
        let digits = String(self.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (self < 0 ? "-" : "") + out
    }
}
