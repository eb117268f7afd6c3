import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The support desk's Apple actions on the selected subscription: refund it (REFUND), reverse a refund
/// (REFUND_REVERSED), extend its renewal date (RENEWAL_EXTENDED), set its chain's app account token (as Set
/// App Account Token does; a text that is no UUID is refused at the prompt). Each asks on the status line, is
/// done by the store (which writes Apple's notification to the log and the audit line) as the console's staff
/// member, and the list and detail show the engine's new state. `storedesk support ...` does the same.
extension SubscriptionsScreen {
    /// Needs a subscription selected.
    static let needsSelection: @Sendable (SubscriptionsScreen) -> String? = {
        $0.selectedRow == nil ? "no subscription is selected" : nil
    }

    static let supportCommands: [ScreenCommand<SubscriptionsScreen>] = [
        .key(
            .character("F"), action: .supportRefund, help: "refund",
            summary: "Refund the selected subscription's current period with a reason: Apple's REFUND, audited.",
            permission: .actForApple, writes: true, unavailable: needsSelection),
        .key(
            .character("U"), action: .supportUnrefund, help: "unrefund",
            summary: "Reverse the selected subscription's refund with a reason: Apple's REFUND_REVERSED, audited.",
            permission: .actForApple, writes: true, unavailable: needsSelection),
        .key(
            .character("E"), action: .supportExtend, help: "extend",
            summary: "Extend the selected subscription's renewal date: DAYS (1-90) and Apple's reason code 0-3; RENEWAL_EXTENDED, audited.",
            permission: .actForApple, writes: true, unavailable: needsSelection),
        .key(
            .character("T"), action: .supportToken, help: "token",
            summary: "Set the selected subscription's app account token (a UUID) on its whole chain, as Set App Account Token does; audited.",
            permission: .actForApple, writes: true, unavailable: needsSelection),
    ]

    /// What a support write came back with: a line for the status bar, good or bad.
    public enum SupportOutcomeLine: Sendable {
        case done(String)
        case refused(String)
    }

    /// The subscription a support action was started on, as the list showed it then: every later step
    /// of the action is bound to it, never to whatever is selected by then.
    public struct SupportSubject: Sendable, Equatable {
        public var id: String
        public var userId: String
        public var productId: String

        /// `2000000100000050 of player 10000002`.
        var label: String { "\(id) of player \(userId)" }
        /// `2000000100000050 of player 10000002 (com.….quarterly)`.
        var fullLabel: String { "\(label) (\(productId))" }
    }

    /// Which action's prompt the typed text answers.
    public enum SupportStep: Sendable, Equatable {
        case refund, unrefund, extend, token
    }

    /// A support write, checked and ready to ask y/n for.
    public enum SupportWrite: Sendable, Equatable {
        case refund(reason: String)
        case unrefund(reason: String)
        case extend(days: Int, reasonCode: Int)
        case token(String)
    }

    /// Apple's reasons for a renewal extension (`extendReasonCode`), as its prompt lists them.
    static let extendReasons = "0 undeclared, 1 satisfaction, 2 other, 3 outage"

    mutating func performSupport(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .supportRefund, .supportUnrefund, .supportExtend, .supportToken:
            guard let row = selectedRow?.subscription else {
                context.status = StatusMessage("no subscription is selected", .warning)
                return []
            }
            let subject = SupportSubject(id: row.id, userId: row.userId, productId: row.productId)
            let (step, label, history, refuse): (SupportStep, String, String, @Sendable (String) -> String?) =
                switch action {
                case .supportRefund: (.refund, "refund \(subject.label): reason", "support reason", { AppleSupport.reasonProblem($0) })
                case .supportUnrefund:
                    (.unrefund, "reverse the refund of \(subject.label): reason", "support reason", { AppleSupport.reasonProblem($0) })
                case .supportExtend:
                    (.extend, "extend \(subject.label): DAYS (1-90) REASON (\(Self.extendReasons))", "extend",
                     { Self.extensionRequest($0).refusal })
                default: (.token, "app account token of \(subject.label): UUID", "app account token", { Self.tokenProblem($0) })
                }
            Self.prompt(label, history: history, &context, refuse: refuse) { .supportTyped(subject, step, $0) }
        case .supportTyped(let subject, let step, let text):
            guard let write = Self.supportWrite(step, text, &context) else { return [] }
            Self.prompt("\(Self.question(write, subject)) y/n", kind: .yesNo, &context) { .supportGo(subject, write, answer: $0) }
        case .supportGo(let subject, let write, let answer):
            guard ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                context.status = StatusMessage("\(Self.verb(write)) \(subject.id): cancelled, nothing was written")
                return []
            }
            return [Self.supportEffect(subject, write, staff: context.session.staff, at: context.clock)]
        default:
            break
        }
        return []
    }

    /// The typed text as the write it asks for, or nil with the reason on the status line.
    static func supportWrite(_ step: SupportStep, _ text: String, _ context: inout ScreenContext) -> SupportWrite? {
        let typed = text.trimmingCharacters(in: .whitespaces)
        switch step {
        case .refund, .unrefund:
            if let problem = AppleSupport.reasonProblem(typed) {
                context.status = StatusMessage(problem + ": nothing was written", .error)
                return nil
            }
            return step == .refund ? .refund(reason: typed) : .unrefund(reason: typed)
        case .extend:
            guard let request = extensionRequest(typed).request else {
                context.status = StatusMessage((extensionRequest(typed).refusal ?? "type DAYS REASON-CODE") + ": nothing was written", .error)
                return nil
            }
            return .extend(days: request.extendByDays, reasonCode: request.extendReasonCode)
        case .token:
            // A bad token is refused here, in one line, before anything reaches the store.
            guard let token = AppStoreAPIError.canonicalUUID(typed) else {
                context.status = StatusMessage((tokenProblem(text) ?? "not a UUID") + ": nothing was written", .error)
                return nil
            }
            return .token(token)
        }
    }

    /// `refund`, `reverse the refund of`, ...: what the write does, for its y/n and its cancel.
    static func verb(_ write: SupportWrite) -> String {
        switch write {
        case .refund: "refund"
        case .unrefund: "reverse the refund of"
        case .extend: "extend"
        case .token: "set the app account token of"
        }
    }

    /// The y/n's question: the subscription, its player and exactly what will be written.
    static func question(_ write: SupportWrite, _ subject: SupportSubject) -> String {
        switch write {
        case .refund(let reason), .unrefund(let reason):
            "\(verb(write)) \(subject.fullLabel) with the reason “\(reason)”?"
        case .extend(let days, let code):
            "extend \(subject.fullLabel) by \(days) day\(days == 1 ? "" : "s"), Apple's reason \(code) (\(extendReasonName(code)))?"
        case .token(let token):
            "set the app account token of \(subject.fullLabel) and its chain to \(token)?"
        }
    }

    /// Apple's name of an `extendReasonCode`.
    static func extendReasonName(_ code: Int) -> String {
        switch code {
        case 0: "undeclared"
        case 1: "customer satisfaction"
        case 2: "other"
        case 3: "service issue or outage"
        default: "code \(code)"
        }
    }

    /// The write, on the subject's id, as the console's staff member.
    static func supportEffect(_ subject: SupportSubject, _ write: SupportWrite, staff: StaffMember, at: Instant) -> Effect {
        let id = subject.id
        return Self.write { store in
            do {
                switch write {
                // Who did it and the reason as typed, in the line `:messages` keeps (the audit log has both).
                case .refund(let reason):
                    let done = try store.refund(id, reason: reason, appIssue: false, by: staff, at: at)
                    return .support(.done(
                        "\(done.notification.notificationType.rawValue) for \(subject.id) written to the log: support refund by \(staff.name), reason: \(ControlCharacters.escaped(reason))"))
                case .unrefund(let reason):
                    let done = try store.reverseRefund(id, reason: reason, by: staff, at: at)
                    return .support(.done(
                        "\(done.notification.notificationType.rawValue) for \(subject.id) written to the log: refund reversed by \(staff.name), reason: \(ControlCharacters.escaped(reason))"))
                case .extend(let days, let code):
                    let request = try RenewalExtensionRequest(
                        extendByDays: days, extendReasonCode: code, requestIdentifier: UUID().uuidString.lowercased())
                    let done = try store.extendRenewalDate(originalTransactionId: id, request, by: staff, readOnly: false, at: at)
                    return .support(.done("extended \(subject.id) by \(done.extendByDays) days to \(done.effectiveDate.iso8601.prefix(10)) (RENEWAL_EXTENDED)"))
                case .token(let token):
                    try store.setAppAccountToken(token, originalTransactionId: id, by: staff, readOnly: store.isReadOnly, at: at)
                    return .support(.done("app account token of \(subject.id) (and its chain) set to \(token)"))
                }
            } catch let error as StoreError {
                let refused: String =
                    switch write {
                    case .refund: "not refunded"
                    case .unrefund: "refund not reversed"
                    case .extend: "not extended"
                    case .token: "token not set"
                    }
                return .support(.refused("\(subject.id) \(refused): \(error)"))
            }
        }
    }

    /// Why a typed app account token is refused (one line, the text as typed, cut when long), or nil for a UUID.
    @Sendable static func tokenProblem(_ text: String) -> String? {
        let typed = text.trimmingCharacters(in: .whitespaces)
        if AppStoreAPIError.canonicalUUID(typed) != nil { return nil }
        guard !typed.isEmpty else { return "the app account token must be a UUID, e.g. 7e3fb20b-4cdb-47cc-936d-99d65f608138" }
        let shown = typed.count > 40 ? String(typed.prefix(40)) + "…" : typed
        return "the app account token must be a UUID (8-4-4-4-12 hex digits), got '\(shown)'"
    }

    /// `DAYS REASON-CODE` as Apple's request (a fresh request identifier), or why not.
    static func extensionRequest(_ text: String) -> (request: RenewalExtensionRequest?, refusal: String?) {
        let words = text.split(separator: " ").compactMap { Int($0) }
        guard words.count == 2, text.split(separator: " ").count == 2 else { return (nil, "type DAYS REASON-CODE, e.g. 7 3") }
        do {
            return (try RenewalExtensionRequest(extendByDays: words[0], extendReasonCode: words[1], requestIdentifier: UUID().uuidString.lowercased()), nil)
        } catch {
            let sentence = AppleSupportWrites.sentence(error)
            return (nil, sentence.replacingOccurrences(of: "--days", with: "DAYS").replacingOccurrences(of: "--reason-code", with: "REASON-CODE"))
        }
    }

    mutating func applySupport(_ line: SupportOutcomeLine, _ context: inout ScreenContext) -> [Effect] {
        switch line {
        case .done(let text):
            context.status = StatusMessage(text, .success)
            return refresh(&context) + detailEffect()
        case .refused(let text):
            context.status = StatusMessage(text, .error)
            return []
        }
    }
}
