import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The consumption desk's view: the requests on the left (missed ones in the error colour, open ones with
/// the time left on the console's clock), the selected one in full on the right, its answer field by field.
extension ConsumptionScreen {
    public func render(into canvas: inout Canvas, layout: Layout, context: ScreenContext) {
        let now = context.clock, rows = visible(at: now), index = selectedIndex(in: rows)
        renderList(rows, selected: index, into: &canvas, rect: layout[.list], context: context)
        renderDetail(rows.isEmpty ? nil : rows[index], into: &canvas, rect: layout[.detail], context: context)
    }

    /// The theme role of a standing: missed in the error colour, late in the warning one.
    static func role(of standing: ConsumptionRequestRecord.Standing) -> Role {
        switch standing {
        case .open: .statePurchasing
        case .answered(let late): late ? .statusWarning : .statePurchased
        case .missed: .statusError
        }
    }

    /// `open 11h 59m`, `answered`, `answered late`, `missed`.
    static func standingText(_ standing: ConsumptionRequestRecord.Standing) -> String {
        switch standing {
        case .open(let remaining): "open " + remaining.shortText
        case .answered(let late): late ? "answered late" : "answered"
        case .missed: "missed"
        }
    }

    func renderList(_ rows: [ConsumptionRequestRecord], selected: Int, into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        let focused = context.focus == .list
        let place = rows.isEmpty ? (loaded ? "0" : "…") : "\(selected + 1) of \(rows.count)"
        var title = "Consumption requests · \(standing.rawValue) \(place)"
        if !filter.isEmpty { title += " · “\(filter)”" }
        canvas.frame(rect, title: title, role: focused ? .borderFocused : .border)
        let inner = rect.inset
        guard inner.height > 1 else { return }
        // The page holding the selection.
        let pageRows = max(1, inner.height - 1), first = (selected / pageRows) * pageRows
        let columns = ColumnLayout(
            Self.columns(filter: filter, now: context.clock, zone: context.timeZone), width: inner.width,
            fitting: rows.dropFirst(first).prefix(pageRows))
        canvas.writeLine(columns.header, in: inner, row: 0, role: .listHeader)
        guard !rows.isEmpty else {
            guard loaded else { return }
            let what = standing == .all ? "no consumption requests" : "no \(standing.rawValue) consumption requests"
            let message =
                filter.isEmpty
                ? what + (context.session.readOnly ? "" : ": r raises one for a consumable purchase") : what + " match “\(filter)”"
            for (i, line) in TextWrap.lines(message, width: inner.width - 2).enumerated() where i + 2 < inner.height {
                canvas.write(line, at: Point(x: inner.x + 1, y: inner.y + 2 + i), role: .muted, maxWidth: inner.width - 2)
            }
            return
        }
        for (i, request) in rows.enumerated().dropFirst(first).prefix(pageRows) {
            let role: Role = i == selected ? (focused ? .listSelected : .listSelectedUnfocused) : Self.role(of: request.standing(at: context.clock))
            canvas.writeLine(columns.line(request), in: inner, row: i - first + 1, role: role)
        }
    }

    /// The list's columns, most important first: the transaction a ticket gives, where the request stands
    /// (the time left while open), the player (masked), the product; a wider terminal adds Apple's reason,
    /// the app, when it was raised and who raised or answered it. While a filter is on, MATCHED says where.
    static func columns(filter: String, now: Instant, zone: TimeZone) -> [ListColumn<ConsumptionRequestRecord>] {
        var matched = MatchedFields<ConsumptionRequestRecord>()
        matched.contains("transaction", filter, ignoringCase: true) { $0.transactionId }
        matched.contains("player", filter, ignoringCase: true) { $0.userId }
        matched.contains("product", filter, ignoringCase: true) { $0.productId ?? "" }
        matched.contains("app", filter, ignoringCase: true) { $0.appId }
        matched.contains("reason", filter, ignoringCase: true) { $0.reason }
        return [
            ListColumn("TRANSACTION", priority: 1, width: 16) { $0.transactionId },
            ListColumn("STATE", priority: 2, width: 13) { standingText($0.standing(at: now)) },
            ListColumn("PLAYER", priority: 3, min: 8, ideal: 10) { player($0) },
        ] + matched.column(priority: 4) + [
            ListColumn("PRODUCT", priority: 5, min: 8, ideal: 20, grows: true) { $0.productId.map(DetailText.shortProduct) ?? "-" },
            ListColumn("REASON", priority: 6, width: 11) { reasonWord($0.reason) },
            ListColumn("APP", priority: 7, width: 4) { $0.appId },
            ListColumn("REQUESTED", priority: 8, width: 16) { $0.requestedAt.shortText(in: zone) },
            ListColumn("BY", priority: 9, min: 8, ideal: 12) { $0.answeredBy ?? $0.requestedBy },
        ]
    }

    /// Apple's reason in a word for the list (`UNSATISFIED_WITH_PURCHASE` → `unsatisfied`); the detail
    /// pane says it whole.
    static func reasonWord(_ reason: String) -> String {
        switch reason {
        case "UNINTENDED_PURCHASE": "unintended"
        case "FULFILLMENT_ISSUE": "fulfillment"
        case "UNSATISFIED_WITH_PURCHASE": "unsatisfied"
        default: reason.lowercased()
        }
    }

    func renderDetail(_ request: ConsumptionRequestRecord?, into canvas: inout Canvas, rect: Rect, context: ScreenContext) {
        canvas.frame(rect, title: "Consumption request", role: context.focus == .detail ? .borderFocused : .border)
        let inner = rect.inset
        guard let request else {
            let hint = "Apple asks for consumption information when a player asks for a consumable's refund; answer within 12 hours."
            for (i, line) in TextWrap.lines(hint, width: inner.width - 2).enumerated() where i < inner.height {
                canvas.write(line, at: Point(x: inner.x + 1, y: inner.y + i), role: .muted, maxWidth: inner.width - 2)
            }
            return
        }
        canvas.draw(detailLines(request, width: inner.width - 2, context: context), in: inner, scroll: detailScroll)
    }

    func detailLines(_ r: ConsumptionRequestRecord, width: Int, context: ScreenContext) -> [[Span]] {
        let zone = context.timeZone, standing = r.standing(at: context.clock)
        var text = DetailText(labelWidth: 11)
        text.line(Span(r.transactionId, .title))
        switch standing {
        case .open(let remaining):
            text.field("state", ["open", "\(remaining.shortText) left", "answer by \(r.deadline.shortText(in: zone))"], width: width, Self.role(of: standing))
        case .answered(let late):
            text.field(
                "state", [late ? "answered late" : "answered", "by \(r.answeredBy ?? "?")", r.answeredAt?.shortText(in: zone) ?? ""], width: width,
                Self.role(of: standing))
        case .missed:
            text.field("state", ["missed", "deadline \(r.deadline.shortText(in: zone))"], width: width, Self.role(of: standing))
        }
        text.field("player", Self.player(r))
        text.wrapped("product", r.productId ?? "-", width: width)
        text.field("app", r.appId)
        text.field("reason", r.reason)
        text.field("requested", [r.requestedAt.shortText(in: zone), "by \(r.requestedBy)"], width: width)
        text.field("deadline", r.deadline.shortText(in: zone))

        if let answer = r.answer {
            text.heading("Consumption information")
            if let info = try? JSONDecoder().decode(ConsumptionInformation.self, from: Data(answer.utf8)) {
                for (label, value) in Self.answerFields(info) { text.field(label, [value], width: width) }
            } else {
                text.wrapped("sent", answer, width: width)
            }
        } else if context.session.role.refusal(.actForApple) != nil {
            text.line([])
            text.paragraph("", "an operator may look; raising and answering need the support or developer role", width: width, .muted)
        } else if !context.session.readOnly {
            text.line([])
            let late = standing == .missed ? " (past the deadline: kept, marked late)" : ""
            text.paragraph("", "a answers it with consumption information\(late)", width: width, .muted)
        }
        return text.lines
    }

    /// The answer's fields in words, as Apple defines their codes.
    static func answerFields(_ info: ConsumptionInformation) -> [(String, String)] {
        func named(_ value: Int, _ names: [String]) -> String { names.indices.contains(value) ? "\(value) \(names[value])" : "\(value)" }
        return [
            ("consented", info.customerConsented ? "yes" : "no"),
            ("consumed", named(info.consumptionStatus, ["undeclared", "not consumed", "partially consumed", "fully consumed"])),
            ("platform", named(info.platform, ["undeclared", "Apple", "non-Apple"])),
            ("sample", info.sampleContentProvided ? "yes" : "no"),
            ("delivery", named(info.deliveryStatus, ["delivered and working", "quality issue", "wrong item", "server outage", "currency change", "other"])),
            ("token", info.appAccountToken.isEmpty ? "-" : info.appAccountToken),
            ("tenure", "band \(info.accountTenure)"),
            ("play time", "band \(info.playTime)"),
            ("refunded", "band \(info.lifetimeDollarsRefunded)"),
            ("purchased", "band \(info.lifetimeDollarsPurchased)"),
            ("user", named(info.userStatus, ["undeclared", "active", "suspended", "terminated", "limited access"])),
            ("preference", info.refundPreference.map { named($0, ["undeclared", "grant", "decline", "no preference"]) } ?? "-"),
        ]
    }
}
