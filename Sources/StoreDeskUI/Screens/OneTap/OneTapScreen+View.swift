import Foundation
import StoreDeskCore

extension OneTapScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        renderSteps(into: &canvas, rect: layout[.list], context: context)
        renderOutcome(into: &canvas, rect: layout[.detail], context: context)
    }

    /// The list pane: the simulator's settings (key and number masked), then the steps taken.
    func renderSteps(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        let focused = context.focus == .list
        canvas.frame(rect, title: "One-tap login · \(log.count) step\(log.count == 1 ? "" : "s")", role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard let login, inner.height > 2 else { return }
        let width = inner.width - 2
        var text = DetailText(labelWidth: 10)
        if let registration = login.registration {
            text.field("appId", registration.appId)
            text.field("appKey", Masking.secret(registration.appKey), .masked)
        } else {
            text.field("appId", "not registered (r)", .statusWarning)
        }
        text.field("timeout", "\(login.effectiveTimeoutMillis) ms" + (login.timeoutMillis > 0 ? "" : " (default)"))
        text.field("network", login.network.rawValue)
        text.field("SIM", login.carrier.title)
        text.field("number", Masking.phone(login.phoneNumber), .masked)
        text.field("cached", login.cachedNumber == nil ? "no credential" : "pre-fetched number")
        let unused = clock.map { login.unusedTokens(at: $0) } ?? 0
        text.field("tokens", "\(unused)/\(OneTapLogin.unusedTokenLimit) unused in 10 min", unused >= OneTapLogin.unusedTokenLimit ? .statusError : .detailValue)
        text.field("clock", clock.map { $0.secondsText(in: context.timeZone) } ?? "")
        // One column of margin, as the list rows below have.
        var lines = text.lines.map { [Span(" ", .text)] + $0 }
        lines.append([])
        lines.append([Span(" " + "TIME".padded(to: 9) + "STEP".padded(to: 10) + "CODE", .listHeader)])
        if log.isEmpty { lines.append([Span(" no step yet: f pre-fetches, l opens the page", .muted)]) }
        let room = max(0, inner.height - lines.count)
        let top = max(0, selected - room + 1)
        for (i, outcome) in log.enumerated().dropFirst(top).prefix(room) {
            let time = String(outcome.at.secondsText(in: context.timeZone).suffix(8))
            let line = " " + time.padded(to: 9) + outcome.step.padded(to: 10) + outcome.result.code + " " + outcome.result.carrierText
            let role: Role =
                i == selected ? (focused ? .listSelected : .listSelectedUnfocused) : outcome.result.isSuccess ? .statusSuccess : .statusWarning
            lines.append([Span(line.padded(to: width + 1), role)])
        }
        canvas.draw(lines, in: Rect(x: inner.x - 1, y: inner.y, width: inner.width + 1, height: inner.height), scroll: 0)
    }

    /// The detail pane: the selected step in full, then every result code with its meaning.
    func renderOutcome(into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        canvas.frame(rect, title: "Result", role: context.focus == .detail ? .borderFocused : .border)
        let width = rect.inset.width - 2
        var text = DetailText(labelWidth: 9)
        if let outcome = selectedOutcome {
            text.line(Span(outcome.result.code + " ", outcome.result.isSuccess ? .statusSuccess : .statusWarning), Span(outcome.result.carrierText, .title))
            text.paragraph("meaning", outcome.result.meaning, width: width)
            text.paragraph("detail", outcome.detail, width: width)
            text.field("step", outcome.step + " at " + outcome.at.secondsText(in: context.timeZone))
            if let number = outcome.maskedNumber { text.field("number", number, .masked) }
            if let token = outcome.token { text.wrapped("token", token, width: width) }
            if let expires = outcome.expiresAt { text.field("expires", expires.secondsText(in: context.timeZone)) }
            if outcome.token != nil { text.field("openId", outcome.openId ?? "none (implicit login)", outcome.openId == nil ? .muted : .detailValue) }
            if let terms = outcome.terms { text.field("terms", terms) }
        } else {
            text.line(Span("No step yet.", .muted))
        }
        text.heading("Result codes (\(OneTapResultCode.table.count))")
        for code in OneTapResultCode.table {
            text.line(Span(code.code + " ", .detailLabel), Span(code.carrierText, .detailValue))
            text.paragraph("", code.meaning, width: width, .muted)
        }
        canvas.draw(text.lines, in: rect.inset, scroll: detailScroll)
    }
}
