import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Consumption screen in the console: its keys, its `:` verbs, and its reducer's entry points.
extension ConsumptionScreen: ConsoleScreen {
    public static let id = ScreenID("consumption")
    public static let title = "Consumption"
    public static let shortTitle = "Cons"

    /// What this screen's keys, verbs and prompts ask for.
    public enum Action: Sendable, Equatable {
        /// Raise a consumption request: ask for the transaction, then the reason.
        case request
        /// The transaction typed at the request's first prompt.
        case requestFor(String)
        /// Raise it: the transaction and the reason (`:request TRANSACTION REASON`, or the second prompt).
        case requestBecause(transactionId: String, reason: String)
        /// Answer the selected request: its fields one prompt each, then `y`.
        case answer
        /// One field's answer, by its place in `answerSteps`.
        case answerField(Int, String)
        /// The final question's answer.
        case answerSend(String)
        /// List the next standing: all, open, missed, answered (`:requests STANDING`).
        case nextStanding
        case standing(StandingFilter)
    }

    /// Why `a` cannot answer the selected request now, or nil.
    static let answerUnavailable: @Sendable (ConsumptionScreen) -> String? = { screen in
        guard let request = screen.selectedRequest(at: screen.clock) else { return "no consumption request is selected" }
        if case .answered = request.standing(at: screen.clock) {
            return "the consumption request of \(request.transactionId) is answered already: not open"
        }
        return nil
    }

    /// Operators look; support and developers act for Apple (the store checks again when it writes).
    public static let commands: [ScreenCommand<ConsumptionScreen>] = [
        .key(
            .character("r"), action: .request, help: "request",
            summary: "Raise Apple's CONSUMPTION_REQUEST for a consumable purchase: its transaction, then the player's reason (12 hours to answer; audited).",
            permission: .actForApple, writes: true,
            verb: ScreenVerb("request", argument: "TRANSACTION REASON", summary: "raise a consumption request for a consumable") { text in
                let words = text.split(separator: " ").map(String.init)
                guard words.count == 2 else { return .failure(VerbProblem(":request takes TRANSACTION REASON, e.g. :request 2000000000000001 OTHER")) }
                guard let reason = ConsumptionScreen.reason(words[1]) else { return .failure(VerbProblem(ConsumptionScreen.reasonProblem(words[1]))) }
                return .success(.requestBecause(transactionId: words[0], reason: reason))
            }),
        .key(
            .character("a"), action: .answer, help: "answer",
            summary: "Answer the selected request with consumption information, field by field (after the deadline it is kept, marked late; audited).",
            permission: .actForApple, writes: true, unavailable: answerUnavailable),
        .key(
            .character("s"), action: .nextStanding, help: "standing", summary: "Show the next standing: all, open, missed, answered.",
            verb: ScreenVerb("requests", argument: "all|open|missed|answered", summary: "which consumption requests to list") { text in
                guard let standing = StandingFilter(rawValue: text) else {
                    return .failure(VerbProblem(":requests takes all, open, missed or answered, got '\(text)'"))
                }
                return .success(.standing(standing))
            }),
    ]

    public static let footer: [Action] = [.request, .answer, .nextStanding]

    public var filterText: String? { filter }
    public var completionIds: [String] { visible(at: clock).map(\.transactionId) }
    public var selectedId: String? { selectedRequest(at: clock)?.transactionId }

    /// Apple's reasons, by name (any case) or by their number in the list (1-5).
    static func reason(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let n = Int(trimmed), ConsumptionRequestRecord.reasons.indices.contains(n - 1) { return ConsumptionRequestRecord.reasons[n - 1] }
        return ConsumptionRequestRecord.reasons.first { $0 == trimmed.uppercased() }
    }

    static func reasonProblem(_ text: String) -> String {
        "the reason must be 1-5 or one of \(ConsumptionRequestRecord.reasons.joined(separator: ", ")), got '\(text)'"
    }

    /// `1 UNINTENDED_PURCHASE, 2 FULFILLMENT_ISSUE, …`: the reasons as the prompt offers them.
    static var reasonChoices: String {
        ConsumptionRequestRecord.reasons.enumerated().map { "\($0.offset + 1) \($0.element)" }.joined(separator: ", ")
    }

    func readRequests() -> [Effect] {
        [Self.read { store in .requests(try store.consumptionRequests(appId: nil, limit: Self.limit)) }]
    }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] {
        clock = context.clock
        return readRequests()
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] {
        clock = context.clock
        return readRequests()
    }

    /// The deadlines count down on the console's clock: nothing to read, the view computes each standing.
    public mutating func tick(_ context: inout ScreenContext) -> [Effect] {
        clock = context.clock
        return []
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        filter = text
        detailScroll = 0
        return []
    }

    /// `:select TRANSACTION`: that request, whatever its standing.
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        standing = .all
        filter = ""
        selectedTransaction = id
        detailScroll = 0
        if loaded, !requests.contains(where: { $0.transactionId == id }) {
            context.status = StatusMessage("no consumption request for transaction \(id)", .warning)
        }
        return readRequests()
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        clock = context.clock
        switch event {
        case .requests(let rows):
            requests = rows
            loaded = true
            // Keep the selection on the same request; else the first shown.
            let shown = visible(at: context.clock)
            if !shown.contains(where: { $0.transactionId == selectedTransaction }) { selectedTransaction = shown.first?.transactionId }
            return []
        case .written(let outcome, let select):
            switch outcome {
            case .done(let text):
                context.status = StatusMessage(text, .success)
                if let select {
                    selectedTransaction = select
                    // The request just written is shown whatever the standing filter.
                    standing = .all
                    detailScroll = 0
                }
            case .refused(let text):
                context.status = StatusMessage(text, .error)
            }
            return readRequests()
        }
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        clock = context.clock
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            let rows = visible(at: context.clock)
            guard !rows.isEmpty else { return [] }
            let moved = ListSelection.moved(selectedIndex(in: rows), by: command, count: rows.count, page: context.pageSize)
            if rows[moved].transactionId != selectedTransaction { detailScroll = 0 }
            selectedTransaction = rows[moved].transactionId
            return []
        case .open:
            context.focus = .detail
            return []
        case .back:
            draft = nil
            raising = nil
            return []
        default:
            return []
        }
    }

    public mutating func click(at point: Point, in rect: Rect, _ context: inout ScreenContext) -> [Effect] {
        let rows = visible(at: context.clock), inner = rect.inset
        // Rows are drawn below the column header, a page at a time around the selection.
        let pageRows = max(1, inner.height - 1), first = (selectedIndex(in: rows) / pageRows) * pageRows
        let index = first + point.y - inner.y - 1
        guard point.y > inner.y, rows.indices.contains(index) else { return [] }
        selectedTransaction = rows[index].transactionId
        detailScroll = 0
        return []
    }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        clock = context.clock
        switch action {
        case .nextStanding:
            let all = StandingFilter.allCases
            standing = all[((all.firstIndex(of: standing) ?? 0) + 1) % all.count]
            context.status = StatusMessage("showing \(standing.rawValue) consumption requests")
            detailScroll = 0
            return []
        case .standing(let chosen):
            standing = chosen
            detailScroll = 0
            return []
        case .request:
            Self.prompt("consumption request for the consumable purchase: TRANSACTION", history: "transaction", &context, refuse: { text in
                text.trimmingCharacters(in: .whitespaces).isEmpty ? "type the consumable's transaction id" : nil
            }) { .requestFor($0) }
            return []
        case .requestFor(let text):
            let id = text.trimmingCharacters(in: .whitespaces)
            raising = id
            Self.prompt("the player's reason for \(id): \(Self.reasonChoices)", &context, refuse: { text in
                Self.reason(text) == nil ? Self.reasonProblem(text) : nil
            }) { .requestBecause(transactionId: id, reason: $0) }
            return []
        case .requestBecause(let id, let typed):
            raising = nil
            guard let reason = Self.reason(typed) else {
                context.status = StatusMessage(Self.reasonProblem(typed), .error)
                return []
            }
            let staff = context.session.staff, at = context.clock
            return [Self.write { store in
                do {
                    let done = try store.requestConsumption(transactionId: id, reason: reason, by: staff, at: at)
                    return .written(
                        .done("CONSUMPTION_REQUEST for \(id) (\(reason)) written to the log: answer by \(done.deadline.iso8601)"), select: id)
                } catch let error as StoreError {
                    return .written(.refused("no consumption request: \(error)"), select: nil)
                }
            }]
        case .answer:
            guard let request = selectedRequest(at: context.clock) else { return [] }
            draft = AnswerDraft(transactionId: request.transactionId)
            askNext(&context)
            return []
        case .answerField(let index, let text):
            return answered(field: index, text, &context)
        case .answerSend(let text):
            return send(text, &context)
        }
    }
}
