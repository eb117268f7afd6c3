import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension RestoresScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        renderList(into: &canvas, rect: layout[.list], context: context)
        renderDetail(into: &canvas, rect: layout[.detail], context: context)
    }

    /// The theme role of a prompt's status.
    static func role(of status: RestoreStatus) -> Role {
        switch status {
        case .open: .statePurchased
        case .confirmed: .stateRestored
        case .declined: .stateFailed
        }
    }

    func renderList(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        let focused = context.focus == .list
        // A prompt just resolved stays in view though no longer in the list: no place while it does. A
        // prompt kept in view while a confirm or decline is under way on it is still in the list.
        let placed = pinned.map { status == nil || $0.request.status == status } ?? true
        var title = "Restores · " + (status?.rawValue ?? "all") + " " + list.positionText(count: statusCount, placed: placed)
        if sort != ListSort("prompted") { title += " · " + sort.label }
        if !filter.isEmpty { title += " · “\(filter)”" }
        title = Self.titled(title, sandbox: sandboxCount, hidden: hidesSandbox, width: rect.width)
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        let columns = ColumnLayout(
            Self.columns(showing: status, filter: filter, now: context.clock, zone: context.timeZone), width: inner.width,
            fitting: list.rows.prefix(max(0, inner.height - 1)))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        guard !list.rows.isEmpty else {
            let what = status.map { "no \($0.rawValue) restore prompts" } ?? "no restore prompts"
            let message = filter.isEmpty ? what + (status == .open ? ": a dropped order gets one when its player logs in" : "") : what + " match “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
            return
        }
        for (i, row) in list.rows.enumerated() where i + 1 < inner.height {
            let role: Role = i == list.selected ? (focused ? .listSelected : .listSelectedUnfocused) : Self.role(of: row.request.status)
            canvas.writeLine(columns.line(row), in: inner, row: i + 1, role: role)
        }
    }

    /// The list's columns, most important first: the transaction a ticket gives, the player, how long
    /// the prompt has waited (the open list) or its status (every other list), the product; a wide
    /// terminal adds the app, when the prompt was made and who resolved it. While a filter is on,
    /// MATCHED says which of the fields it looks in (as typed) held it.
    static func columns(showing status: RestoreStatus?, filter: String = "", now: Instant, zone: TimeZone) -> [ListColumn<RestoreRow>] {
        var matched = MatchedFields<RestoreRow>()
        matched.contains("transaction", filter) { $0.request.transactionId }
        matched.contains("player", filter) { $0.request.userId }
        matched.contains("product", filter) { $0.request.productId }
        return [
            ListColumn(status == .open ? "AGE" : "STATUS", priority: 4, width: 9) { row in
                let r = row.request
                // A prompt just resolved here stays on the open list, marked, until the selection moves on.
                guard status == .open else { return r.status.rawValue }
                let mark = r.status == .confirmed ? "✓ " : r.status == .declined ? "✗ " : ""
                return mark + Instant.Duration(millis: max(0, now.millis - r.createdAt.millis)).shortText
            },
            ListColumn("TRANSACTION", priority: 1, width: 16) { $0.request.transactionId },
            ListColumn("PLAYER", priority: 2, min: 8, ideal: 9) { $0.request.userId },
        ] + matched.column(priority: 3) + [
            ListColumn("PRODUCT", priority: 5, min: 8, ideal: 20, grows: true) { DetailText.shortProduct($0.request.productId) + " ×\($0.request.quantity)" },
            ListColumn("APP", priority: 6, width: 4) { $0.appId },
            ListColumn("PROMPTED", priority: 7, width: 16) { $0.request.createdAt.shortText(in: zone) },
            ListColumn("RESOLVED BY", priority: 8, min: 8, ideal: 14) { $0.request.resolvedBy ?? "-" },
        ]
    }

    func renderDetail(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        canvas.frame(rect, title: picking == nil ? "Restore prompt" : "Confirm: choose the account", role: context.focus == .detail ? .borderFocused : .border)
        let inner = rect.inset
        guard let detail, detail.request.transactionId == selectedRow?.request.transactionId else {
            if selectedRow != nil { canvas.write("loading…", at: Point(x: inner.x + 1, y: inner.y), role: .muted) }
            return
        }
        let lines = detailLines(detail, width: inner.width - 2, context: context)
        var scroll = detailScroll
        if let picking, let heading = lines.firstIndex(where: { $0.first?.text.hasPrefix("Candidate accounts") == true }) {
            // Keep the account under the picker's cursor in view.
            scroll = max(scroll, heading + 1 + picking + 1 - inner.height)
        }
        canvas.draw(lines, in: inner, scroll: scroll)
    }

    func detailLines(_ p: RestorePrompt, width: Int, context: ScreenContext) -> [[Span]] {
        let r = p.request, t = p.transaction, zone = context.timeZone
        var text = DetailText(labelWidth: 11)
        text.line(Span(t.id, .title))
        let waited = p.age(at: context.clock).shortText
        switch r.status {
        case .open: text.field("status", ["open", "waiting \(waited)"], width: width, Self.role(of: r.status))
        case .confirmed, .declined:
            text.field(
                "status", ["\(r.status.rawValue) by \(r.resolvedBy ?? "?") (\(r.resolvedRole ?? "?"))", "after \(waited)"], width: width,
                Self.role(of: r.status))
        }
        // Each value wraps between its parts (an Apple ID, an app order id: what a ticket gives stays whole).
        text.field("player", [r.userId] + p.appleIds.map { "Apple ID " + $0 }, width: width)
        text.wrapped("product", "\(p.product.id) ×\(r.quantity)", width: width)
        text.field("", [p.product.name, p.product.priceText, p.product.type.name], width: width)
        text.field("app", ["\(p.app.name) (\(p.app.id))"], width: width)
        text.field(
            "purchased", [t.purchaseDate.shortText(in: zone), t.environment.rawValue] + (t.appOrderId.isEmpty ? [] : [t.appOrderId]),
            width: width)
        text.paragraph("owner", p.currentOwners.map { Self.accountText($0) }.joined(separator: " + "), width: width)
        text.paragraph("rule", p.ownershipRule, width: width, .statusInfo)

        text.heading("Candidate accounts (\(p.candidates.count))")
        for (i, account) in p.candidates.enumerated() {
            let marker = picking == i ? "▸ " : "  "
            let paid = account.isSameRole(as: p.payingAccount)
            let note = paid ? "paid" : Self.candidateNote(p.ownership)
            let role: Role = picking == i ? .listSelected : (p.ownership == .keep && !paid ? .muted : .detailValue)
            text.line(Span(marker + Self.accountText(account), role), Span(" · " + note, .muted))
        }

        switch r.status {
        case .open:
            if context.session.role == .operator {
                text.line([])
                text.paragraph("", "an operator may look; confirming and declining need the support or developer role", width: width, .muted)
            }
        case .declined:
            text.heading("Outcome")
            text.field(
                "declined", [r.resolvedAt?.shortText(in: zone) ?? "", "by \(r.resolvedBy ?? "?") (\(r.resolvedRole ?? "?"))"], width: width,
                .stateFailed)
            text.paragraph("reason", r.reason ?? "", width: width)
        case .confirmed:
            text.heading("Outcome")
            let target = p.target
            text.field(
                "restored", [r.resolvedAt?.shortText(in: zone) ?? "", "by \(r.resolvedBy ?? "?") (\(r.resolvedRole ?? "?"))"], width: width,
                .stateRestored)
            if let target {
                text.field("onto", [Self.accountText(target)], width: width)
                text.paragraph("", RestoreRules.ownershipNote(p.ownership, owner: p.payingAccount, target: target), width: width)
            }
            guard let delivery = p.delivery else {
                text.line(Span("no order found for this transaction", .statusError))
                return text.lines
            }
            text.field("order", [delivery.order.id, delivery.order.payment, delivery.order.status.rawValue], width: width)
            if let c = delivery.callback {
                text.field(
                    "callback", ["attempt \(c.attempt) \(c.verdict)", "reply \(c.reply)"], width: width,
                    c.verdict == CallbackAttempt.accepted ? .statusSuccess : .statusError)
                text.wrapped("body", c.body, width: width)
                text.paragraph("verdict", c.reason, width: width)
            }
            if let g = delivery.grant {
                let what = g.kind == .product ? "\(g.productId) ×\(g.quantity)" : "\(g.currencyAmount.formattedWithSeparators) game currency"
                text.field("grant", [what], width: width, .statusSuccess)
                text.field("to", [g.userId, "sid \(g.sid)", "role \(g.roleId)", g.source.rawValue], width: width)
            } else {
                text.field("grant", "none", .statusError)
            }
        }
        return text.lines
    }

    /// What confirming onto an account other than the payer's would do.
    static func candidateNote(_ ownership: RestoreOwnership) -> String {
        switch ownership {
        case .transfer: "transfer: moves here"
        case .keep: "keep: refused"
        case .share: "share: both hold it"
        }
    }

    /// `10000024 s1/r10000024-1 涵涵的小花园`.
    static func accountText(_ account: RestoreAccount) -> String {
        account.label + (account.roleName.isEmpty ? "" : " " + account.roleName)
    }
}
