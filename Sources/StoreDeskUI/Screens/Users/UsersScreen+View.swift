import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension UsersScreen {
    /// The list's columns, most important first: the id a ticket gives, the name, the account type;
    /// a wider terminal adds the login name, when the account was made and the age band.
    /// While a filter is on, MATCHED says which of the row's fields it matched.
    static func columns(zone: TimeZone, filter: UserSearch? = nil) -> [ListColumn<UserRow>] {
        let matched: [ListColumn<UserRow>] = filter.map { search in
            [ListColumn("MATCHED", priority: 3, min: 7, ideal: 16) { search.matchedFields($0.user).joined(separator: ", ") }]
        } ?? []
        return [
            ListColumn("ID", priority: 1, min: 8, ideal: 9) { $0.user.id },
            ListColumn("NAME", priority: 2, min: 16, ideal: 24, grows: true) { $0.user.isGuest ? "(guest)" : $0.user.displayName },
        ] + matched + [
            ListColumn("TYPE", priority: 4, width: 8) { $0.user.site.name },
            ListColumn("LOGIN NAME", priority: 5, min: 10, ideal: 20, grows: true) { $0.user.name },
            // A date costs a time-zone lookup a row: only where the terminal is wide.
            ListColumn("CREATED", priority: 6, width: 16) { $0.user.createdAt.shortText(in: zone) },
            ListColumn("AGE BAND", priority: 7, width: 12) { $0.user.adultType.name },
        ]
    }

    func renderList(into canvas: inout Canvas, rect: Rect, focused: Bool, filter: String, filtering: Bool, zone: TimeZone) {
        var title = "Users · " + list.positionText()
        if filter.isEmpty, sort != ListSort("added") { title += " · " + sort.label }
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        if let scanProgress { title += " · searching \(Int(scanProgress * 100))%" }
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        let search = UserSearch(text: filter)
        let columns = ColumnLayout(
            Self.columns(zone: zone, filter: search.text.isEmpty ? nil : search), width: inner.width,
            fitting: rows.prefix(max(0, inner.height - 1)))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        if rows.isEmpty && scanProgress != nil {
            canvas.write("searching…", at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
            return
        }
        if rows.isEmpty {
            let message = filter.isEmpty ? "no users in this store" : "no user matches “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
            if !filter.isEmpty {
                canvas.write("enter finds it as any id (:find)", at: Point(x: inner.x + 1, y: inner.y + 3), role: .muted, maxWidth: inner.width - 2)
            }
            return
        }
        for (i, row) in rows.enumerated() where i + 1 < inner.height {
            let role: Role = i == selected ? (focused ? .listSelected : .listSelectedUnfocused) : (row.user.isGuest ? .muted : .text)
            canvas.writeLine(columns.line(row), in: inner, row: i + 1, role: role)
        }
    }

    func renderDetail(into canvas: inout Canvas, rect: Rect, focused: Bool, zone: TimeZone, now: Instant, glyphs: TimelineBar.Glyphs) {
        if let history, history.userId == selectedRow?.user.id {
            let page = "page \(history.starts.count)" + (history.hasOlder ? ", > older" : "") + (history.starts.count > 1 ? ", < newer" : "")
            canvas.frame(rect, title: "History · \(history.userId) · \(page)", role: focused ? .borderFocused : .border)
            canvas.draw(
                historyLines(history, zone: zone, width: rect.inset.width - 2, chart: (rect.inset.width - 2, glyphs)), in: rect.inset,
                scroll: detailScroll)
            return
        }
        canvas.frame(rect, title: "Profile", role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard let profile, profile.user.id == selectedRow?.user.id else {
            if selectedRow != nil {
                canvas.write("loading…", at: Point(x: inner.x + 1, y: inner.y), role: .muted)
            }
            return
        }
        canvas.draw(detailLines(profile, zone: zone, now: now, chart: (inner.width - 2, glyphs)), in: inner, scroll: detailScroll)
    }

    func detailLines(_ p: UserProfile, zone: TimeZone, now: Instant, chart: (width: Int, glyphs: TimelineBar.Glyphs)) -> [[Span]] {
        let u = p.user
        var text = DetailText()
        func field(_ label: String, _ value: String, _ role: Role = .detailValue) { text.field(label, value, role) }
        func heading(_ title: String) { text.heading(title) }
        text.line([Span(u.displayName, .title)] + (u.isGuest ? [Span("  guest", .muted)] : []))
        field("id", u.id)
        field("name", u.name)
        field("friendly name", u.friendlyName.isEmpty ? "-" : u.friendlyName)
        // What VeryCD or Platform is, wrapped under the type: never cut at the pane's edge.
        text.wrapped("account type", "\(u.site.name) (site \(u.site.rawValue)\(u.site.explanation.map { ": " + $0 } ?? ""))", width: chart.width)
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
            // The account, then its Apple ID: on the next line when both do not fit (never cut).
            let account = [Span("\(a.appId) \(a.sid)/\(a.roleId) ", .detailValue), Span(a.roleName, .text)]
            text.line(parts: [account, [Span(a.appleId, .muted)]], width: chart.width)
        }
        text.subscriptions(
            rows: p.subscriptions, events: p.subscriptionEvents, at: now, zone: zone,
            chart: (subscriptionBars, chart.width, chart.glyphs))
        heading("Transactions (\(p.transactionCount), \(p.openRestoreRequests) open restore)")
        for t in p.recentTransactions {
            let product = t.productId.split(separator: ".").suffix(2).joined(separator: ".")
            text.line([
                Span(t.purchaseDate.dayText(in: zone) + " ", .muted),
                Span(t.state.rawValue.padded(to: 11), Role.of(t.state)),
                // Not finished: the game has not called finishTransaction, so it is still in the Queue.
                Span(product + (t.finished ? "" : " (in the queue)"), .detailValue),
            ])
        }
        // Notifications sent to the app's URL (shown once any was to be sent), failed sends in the error role.
        if let sent = notifications, sent.userId == u.id, sent.items.contains(where: { $0.delivery != nil }) {
            let failed = sent.items.filter { $0.delivery?.state == .failed }.count
            heading("Notifications sent (\(sent.items.count)\(failed > 0 ? ", \(failed) failed" : ""))")
            for n in sent.items {
                let role: Role
                switch n.delivery?.state {
                case .delivered?: role = .statusSuccess
                case .failed?: role = .statusError
                case .pending?: role = n.delivery?.hadFailures == true ? .statusWarning : .detailValue
                case nil: role = .muted
                }
                // The state, the last attempt's outcome and the next attempt: parts that wrap, never cut.
                var parts: [[Span]] = [[Span(n.event.signedDate.dayText(in: zone) + " ", .muted), Span(n.event.appleName, .detailValue)]]
                if let delivery = n.delivery {
                    parts.append([Span(delivery.state.name + " (\(delivery.attempts.count)/\(NotificationSendSchedule.maximumAttempts))", role)])
                    if let last = delivery.attempts.last { parts.append([Span(last.outcome, last.result == .success ? .muted : role)]) }
                    if let next = delivery.state.nextAttempt { parts.append([Span("next " + next.shortText(in: zone), .muted)]) }
                } else {
                    parts.append([Span("not sent", role)])
                }
                text.line(parts: parts, width: chart.width)
            }
        }
        return text.lines
    }

    /// Two lines a history entry: time, kind, trust mark and the ids it has; then the detail, indented
    /// (stored text escaped, phones masked). With `chart`, the first line of a subscription on the page
    /// (a notification, or a transaction of its chain) has the subscription's timeline bar under it,
    /// the bar update made from the player's profile (`subscriptionBars`), where the pane is wide enough.
    /// The history as lines at most `width` columns: an entry's ids whole (on a line of their own when they
    /// do not fit beside its date and kind), its detail wrapped at spaces, never cut.
    func historyLines(
        _ view: HistoryView, zone: TimeZone, width: Int = .max, chart: (width: Int, glyphs: TimelineBar.Glyphs)? = nil
    ) -> [[Span]] {
        guard !view.entries.isEmpty else { return [[Span("no history", .muted)]] }
        let subscriptions = profile.flatMap { $0.user.id == view.userId ? $0 : nil }
        var charted: Set<String> = []
        return view.entries.flatMap { e -> [[Span]] in
            let items = [e.transactionId.map { "transaction \($0)" }, e.orderId.map { "order \($0)" }].compactMap { $0 }
            let ids = items.joined(separator: " ")
            var head = [Span(e.at.shortText(in: zone) + " ", .muted), Span(e.kind.rawValue.padded(to: 13), .detailLabel)]
            if let trust = e.trust {
                let role: Role =
                    switch trust {
                    case .verified: .statusSuccess
                    case .unverified: .statusWarning
                    case .storeRecord, .support: .muted
                    }
                head.append(Span("[\(trust.label)] ", role))
            }
            var lines: [[Span]]
            if head.reduce(0, { $0 + $1.text.columns }) + ids.columns <= width {
                lines = [head + [Span(ids, .detailValue)]]
            } else {
                // Each id with its label on one line: packed while they fit, never split.
                var packed: [String] = []
                for item in items {
                    if let last = packed.last, last.columns + 1 + item.columns <= width - 2 {
                        packed[packed.count - 1] += " " + item
                    } else {
                        packed.append(item)
                    }
                }
                lines = [head] + packed.map { [Span("  " + $0, .detailValue)] }
            }
            lines += TextWrap.lines(e.maskedDetail, width: width - 2).map { [Span("  " + $0, .text)] }
            if let chart, chart.width >= Self.historyChartMinimum, let subscriptions, let chain = e.originalTransactionId,
                subscriptions.subscriptions.contains(where: { $0.id == chain }), charted.insert(chain).inserted,
                let bar = subscriptionBars[chain]
            {
                var text = DetailText()
                text.timelineBar(bar, width: chart.width - 2, glyphs: chart.glyphs, zone: zone, indent: 2)
                lines += text.lines
            }
            return lines
        }
    }

    /// The narrowest pane a history draws a subscription's bar in: its axis's two dates and some bar.
    static let historyChartMinimum = 26
}
