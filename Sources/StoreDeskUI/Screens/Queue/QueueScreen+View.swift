import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension QueueScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let list = layout[.list], detailRect = layout[.detail]
        let height = headerHeight(context)
        let stats = Rect(x: list.x, y: list.y, width: list.width + detailRect.width, height: height)
        renderStats(into: &canvas, rect: stats, context: context)
        if showsActivity(context) {
            let lines = Self.activityLines
            renderActivity(into: &canvas, rect: Rect(x: stats.x, y: stats.y + height - lines, width: stats.width, height: lines), context: context)
        }
        let below = { (r: Rect) in Rect(x: r.x, y: r.y + height, width: r.width, height: r.height - height) }
        renderList(into: &canvas, rect: below(list), context: context)
        renderDetail(into: &canvas, rect: below(detailRect), context: context)
    }

    /// The queue's header: counters per state and throughput, then this console's simulation.
    func renderStats(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        var x = rect.x + 1, y = rect.y
        let end = rect.x + rect.width - 1
        func put(_ text: String, _ role: Role) {
            guard x < end else { return }
            // Cut at the edge with an ellipsis.
            x += canvas.write(text, at: Point(x: x, y: y), role: role, maxWidth: end - x, ellipsis: true)
        }
        put("\(counts.values.reduce(0, +).formattedWithSeparators) in queue ", .title)
        // The states as a labelled bar; the throughput after it where both fit whole.
        let (buys, done) = throughput
        let rate = " │ " + String(format: "%.1f", buys) + " buys/s " + String(format: "%.1f", done) + " done/s"
        let bar = stateBar
        let room = end - x
        let withRate = bar.fitted(width: room - rate.count, glyphs: context.glyphs)
        let showsRate = withRate.bar > 0 && withRate.levels.allSatisfy { $0 == 0 }
        for span in bar.spans(width: showsRate ? room - rate.count : room, glyphs: context.glyphs) { put(span.text, span.role) }
        if showsRate {
            put(" │ ", .muted)
            put(String(rate.dropFirst(3)), .text)
        }
        x = rect.x + 1
        y += 1
        guard let simulation else {
            put("no simulation in this console" + (context.session.role == .developer && !context.session.readOnly ? " (r starts one)" : ""), .muted)
            if showsDeliveries {
                x = rect.x + 1
                y += 1
                renderDeliveries(put)
            }
            return
        }
        put("simulation ", .text)
        put((paused ? "⏸ " : "▶ ") + Self.speedText(speed), paused ? .statusWarning : .statusSuccess)
        put(" at " + simulation.now.secondsText(in: context.timeZone) + " · \(Self.rateText(simulation.rate))/s", .text)
        put(" · \(simulation.summary.attempts.formattedWithSeparators) attempts, \(simulation.summary.grants.formattedWithSeparators) grants", .muted)
        let faults = simulation.activeFaults
        put(faults.isEmpty ? " · no faults" : " · faults " + faults.map(\.description).joined(separator: " "), faults.isEmpty ? .muted : .statusWarning)
        guard showsDeliveries else { return }
        x = rect.x + 1
        y += 1
        renderDeliveries(put)
    }

    /// The queue's states as a labelled bar: the words of the rarer states shorten first at small widths.
    var stateBar: LabelledBar {
        let parts: [(TransactionState, [String], Int)] = [
            (.purchasing, ["purchasing", "buying", ""], 1), (.purchased, ["purchased", "paid", ""], 2),
            (.deferred, ["deferred", "defer", ""], 4), (.failed, ["failed", "fail", ""], 3), (.restored, ["restored", "rest", ""], 5),
        ]
        return LabelledBar(parts.map { LabelledBar.Part($0.1, count: counts[$0.0] ?? 0, role: Role.of($0.0), priority: $0.2) })
    }

    /// The sparklines, two a line: each series' name, its last minutes (a column per
    /// `activityBucket` of the store's clock, the newest at the right) and its figures, every line as
    /// wide as the others so their columns are the same instants.
    func renderActivity(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        let series = QueueActivity.Series.allCases
        let perLine = (series.count + rect.height - 1) / rect.height
        let cell = (rect.width - 2) / perLine
        let figures = series.map { Self.figures($0, activity: activity) }
        let figuresWidth = figures.map(\.count).max() ?? 0
        for (index, kind) in series.enumerated() {
            let x = rect.x + 1 + (index % perLine) * cell, y = rect.y + index / perLine
            var used = 0
            for span in Self.sparkline(kind, activity: activity, width: cell - 2, figuresWidth: figuresWidth, glyphs: context.glyphs) {
                used += canvas.write(span.text, at: Point(x: x + used, y: y), role: span.role, maxWidth: cell - 2 - used, ellipsis: true)
            }
        }
    }

    /// `12 max 40`: the latest whole bucket's figure (the newest is still filling) and the window's largest.
    static func figures(_ series: QueueActivity.Series, activity: QueueActivity?) -> String {
        guard let values = activity?[series], !values.isEmpty else { return "…" }
        func figure(_ value: Int) -> String { series == .latency ? Self.millisText(value) : value.formattedWithSeparators }
        return figure(values.dropLast().last ?? values[0]) + " max " + figure(values.max() ?? 0)
    }

    /// One series as `purchases ▁▂▃▅█ 12 max 40`, exactly `width` columns: the name, the line as wide as
    /// what is left beside figures `figuresWidth` wide (at most the buckets read), then the figures.
    static func sparkline(
        _ series: QueueActivity.Series, activity: QueueActivity?, width: Int, figuresWidth: Int, glyphs: TimelineBar.Glyphs
    ) -> [Span] {
        let values = activity?[series] ?? []
        let figures = Self.figures(series, activity: activity)
        let name = series.label.padding(toLength: 10, withPad: " ", startingAt: 0)
        let line = max(0, min(activityBuckets, width - name.count - max(figuresWidth, figures.count) - 1))
        let role: Role = switch series {
        case .purchases: .statePurchasing
        case .grants: .statePurchased
        case .failures: .stateFailed
        case .latency: .stateDeferred
        }
        var spans = [Span(name, .muted)]
        if line > 0 { spans.append(Span(Sparkline.text(values, width: line, glyphs: glyphs), role)) }
        spans.append(Span(" " + figures + String(repeating: " ", count: max(0, figuresWidth - figures.count)), .text))
        return spans
    }

    /// `850ms`, `1.2s`, `14s`, `3m5s`.
    static func millisText(_ millis: Int) -> String {
        if millis < 1000 { return "\(millis)ms" }
        if millis < 10_000 { return String(format: "%.1fs", Double(millis) / 1000) }
        return Instant.Duration(millis: Int64(millis)).shortText.replacingOccurrences(of: " ", with: "")
    }

    /// A third header line while callbacks go to real game servers, or the store's latest ones did.
    var showsDeliveries: Bool { !routes.isEmpty || callbackURL != nil || deliveries.attempts > 0 }

    /// `HTTP → http://127.0.0.1:8080/callback (every app) · 2 in flight │ latest 500 attempts: 480 POSTed: …`.
    func renderDeliveries(_ put: (String, Role) -> Void) {
        put("HTTP ", .title)
        var routed = true
        if simulation != nil {
            put(routes.isEmpty ? "→ in process" : "→ " + Self.routesText(routes, apps: simulation?.configuration.apps.count ?? 0), .text)
            put(" · \(inFlight) in flight", .muted)
        } else if let callbackURL {
            put("→ \(callbackURL) once a simulation starts", .text)
        } else {
            routed = false
        }
        guard deliveries.attempts > 0 else { return }
        put(routed ? " │ latest " : "latest ", .muted)
        put(deliveries.text, deliveries.failed > 0 ? .statusWarning : .statusSuccess)
    }

    /// The list's columns, most important first: the transaction id and the player a ticket gives,
    /// the state, the age, the product; a wide terminal adds the server and role, the purchase time
    /// and the app.
    static func columns(now: Instant, zone: TimeZone, filter: String = "") -> [ListColumn<StoreTransaction>] {
        [
            ListColumn("TRANSACTION", priority: 1, width: 16) { $0.id },
            ListColumn("USER", priority: 2, min: 8, ideal: 9) { $0.userId },
        ] + matched(filter).column(priority: 3) + [
            ListColumn("STATE", priority: 4, width: 10) { $0.state.rawValue },
            ListColumn("AGE", priority: 5, width: 7) { Instant.Duration(millis: max(0, now.millis - $0.purchaseDate.millis)).shortText },
            ListColumn("PRODUCT", priority: 6, min: 8, ideal: 20, grows: true) { DetailText.shortProduct($0.productId) + " ×\($0.quantity)" },
            ListColumn("PURCHASED", priority: 7, width: 16) { $0.purchaseDate.shortText(in: zone) },
            ListColumn("ACCOUNT", priority: 8, min: 8, ideal: 16) { "\($0.sid)/\($0.roleId)" },
            ListColumn("APP", priority: 9, width: 4) { $0.appId },
        ]
    }

    /// Which ids the filter's words (beside its `state:`, `user:` and `product:`, which name their field)
    /// were found in, as the store compares them: LIKE, in any case.
    static func matched(_ filter: String) -> MatchedFields<StoreTransaction> {
        let text = Self.query(filter).0.text
        var matched = MatchedFields<StoreTransaction>()
        matched.contains("transaction", text, ignoringCase: true) { $0.id }
        matched.contains("user", text, ignoringCase: true) { $0.userId }
        matched.contains("product", text, ignoringCase: true) { $0.productId }
        return matched
    }

    func renderList(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        let focused = context.focus == .list
        var title = "Queue · " + list.positionText(count: stateCount)
        if sort != ListSort("purchased", descending: true) { title += " · " + sort.label }
        if !filter.isEmpty { title += " · filter “\(filter)”" }
        title = titled(title, width: rect.width)
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        // Ages run from the later of the console's clock and the simulation's (which runs ahead when fast).
        let now = max(context.clock, simulation?.now ?? context.clock)
        let columns = ColumnLayout(
            Self.columns(now: now, zone: context.timeZone, filter: filter), width: inner.width, fitting: rows.prefix(max(0, inner.height - 1)))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        if rows.isEmpty {
            let message = filter.isEmpty
                ? "the queue is empty" + (context.session.role == .developer && simulation == nil ? ": r starts a simulation" : "")
                : "nothing in the queue matches “\(filter)”"
            canvas.write(message, at: Point(x: inner.x + 1, y: inner.y + 2), role: .muted, maxWidth: inner.width - 2)
            return
        }
        for (i, t) in rows.enumerated() where i + 1 < inner.height {
            let role: Role = i == selected ? (focused ? .listSelected : .listSelectedUnfocused) : Role.of(t.state)
            canvas.writeLine(columns.line(t), in: inner, row: i + 1, role: role)
        }
    }

    /// `com.xd.star.gems.60` → `gems.60`: the part that tells products apart.
    func renderDetail(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        canvas.frame(rect, title: "Transaction", role: context.focus == .detail ? .borderFocused : .border)
        let inner = rect.inset
        guard let detail, detail.transaction.id == selectedRow?.id else {
            if selectedRow != nil { canvas.write("loading…", at: Point(x: inner.x + 1, y: inner.y), role: .muted) }
            return
        }
        canvas.draw(detailLines(detail, width: inner.width - 2, context: context), in: inner, scroll: detailScroll)
    }

    func detailLines(_ d: QueueDetail, width: Int, context: ScreenContext) -> [[Span]] {
        let t = d.transaction, zone = context.timeZone
        let app = context.apps.first { $0.id == t.appId }
        var text = DetailText(labelWidth: 11)
        text.line(Span(t.id, .title))
        // Each value wraps between its parts, a date or an id whole: never cut at the pane's edge.
        text.field(
            "state", [t.state.rawValue + (t.failureReason.map { " (\($0.sentence))" } ?? ""), t.finished ? "finished" : "in the queue"],
            width: width, Role.of(t.state))
        text.field("player", [t.userId, "sid \(t.sid)", "role \(t.roleId)"], width: width)
        text.field("product", ["\(t.productId) ×\(t.quantity)"] + (app.map { [$0.name] } ?? []), width: width)
        text.field("purchased", [t.purchaseDate.secondsText(in: zone), t.environment.rawValue], width: width)
        text.wrapped("ext", t.ext.isEmpty ? "-" : t.ext, width: width)

        guard let order = d.order else {
            text.heading("Order")
            let none = t.state == .purchased ? "none: the receipt never reached the server (a dropped order: restore desk)" : "none"
            for line in TextWrap.lines(none, width: width) { text.line(Span(line, .muted)) }
            timeline(&text)
            return text.lines
        }
        text.heading("Order \(order.id)")
        text.field("status", [order.status.rawValue], width: width, order.status == .granted ? .statusSuccess : .statusWarning)
        text.field("payment", [order.payment, order.subPayment, "\(ServerCallback.goldText(cents: order.amountCents)) yuan"], width: width)
        text.field("app order", [order.appOrderId.isEmpty ? "-" : order.appOrderId], width: width)

        // Attempts that never reached a game server (it was down, the callback was dropped) leave no
        // row, only a timeline event: they count too, so the heading agrees with the timeline.
        let lost = d.events.filter { $0.kind == .callbackDropped || $0.kind == .serverDown }.count
        text.heading("Callbacks (\(d.callbacks.count + lost))")
        if lost > 0 {
            text.paragraph("", "\(lost) never reached the game server (it was down or the callback was dropped): see the timeline", width: width, .statusWarning)
        }
        for c in d.callbacks {
            let accepted = c.verdict == CallbackAttempt.accepted
            let role: Role = accepted ? .statusSuccess : c.verdict == CallbackAttempt.duplicate ? .statusInfo : .statusError
            let at = String(c.receivedAt.secondsText(in: zone).suffix(8))
            let attempt = [Span("attempt \(c.attempt) ", .detailValue), Span(c.verdict, role)]
            if let url = c.url {
                // POSTed to a real game server: what came back, and how long it took.
                let answer = c.httpStatus.map { "HTTP \($0)" } ?? "no reply"
                let latency = c.latencyMicros.map { [CallbackReply.millisText($0)] } ?? []
                text.line(parts: [attempt] + ([answer] + latency + [at]).map { [Span($0, .muted)] }, width: width)
                text.wrapped("url", url, width: width, .muted)
                text.wrapped("reply", c.httpStatus == nil ? c.reply : "\"\(c.reply)\"", width: width, role)
            } else {
                text.line(parts: [attempt, [Span("reply \(c.reply)", .muted)], [Span(at, .muted)]], width: width)
            }
            text.wrapped("body", c.body, width: width)
            if let app {
                text.wrapped("hashed", CallbackSignature.verify(body: c.body, appKey: app.appKey).maskedHashedString, width: width, .masked)
            }
            text.field("expected", [c.signExpected], width: width)
            text.field(
                "received", [c.signReceived.isEmpty ? "(none)" : c.signReceived], width: width,
                c.signReceived.caseInsensitiveCompare(c.signExpected) == .orderedSame ? .statusSuccess : .statusError)
            text.wrapped("verdict", c.reason, width: width, role)
        }

        text.heading("Grant")
        if let g = d.grant {
            let what = g.kind == .product ? "\(g.productId) ×\(g.quantity)" : "\(g.currencyAmount.formattedWithSeparators) game currency"
            text.field("granted", [what], width: width, .statusSuccess)
            text.field("to", [g.userId, "sid \(g.sid)", "role \(g.roleId)"], width: width)
            text.field("at", [g.grantedAt.secondsText(in: zone), g.source.rawValue], width: width)
        } else {
            text.line(Span("none yet", .muted))
        }
        timeline(&text)
        return text.lines

        func timeline(_ text: inout DetailText) {
            text.heading("Timeline (\(d.events.count))")
            for e in d.events {
                text.line(Span(String(e.at.secondsText(in: zone).suffix(8)) + " ", .muted), Span(e.kind.rawValue.replacingOccurrences(of: "_", with: " "), Self.role(of: e.kind)))
                text.wrapped("", e.detail, width: width, .text)
            }
        }
    }

    static func role(of kind: PaymentEvent.Kind) -> Role {
        switch kind {
        case .purchasing: .statePurchasing
        case .purchased, .approved, .granted, .callbackAccepted: .statePurchased
        case .failed, .declined, .callbackRejected, .clientCrashed, .callbackAbandoned, .requestRefused, .purchaseRefused: .stateFailed
        case .deferred, .serverDown, .callbackDropped, .callbackFailed: .stateDeferred
        case .callbackDuplicate: .statusInfo
        case .receiptChecked, .orderCreated, .finished: .detailValue
        case .restorePrompted, .restoreConfirmed, .restored: .stateRestored
        case .restoreDeclined: .stateFailed
        }
    }
}

extension QueueActivity.Series {
    /// The sparkline's name on screen.
    var label: String {
        switch self {
        case .purchases: "purchases"
        case .grants: "grants"
        case .failures: "failures"
        case .latency: "latency"
        }
    }
}
