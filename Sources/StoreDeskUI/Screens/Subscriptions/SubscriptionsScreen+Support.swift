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

    mutating func performSupport(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        guard let id = selectedRow?.subscription.id else {
            context.status = StatusMessage("no subscription is selected", .warning)
            return []
        }
        switch action {
        case .supportRefund:
            Self.prompt("refund \(id): reason", history: "support reason", &context, refuse: { AppleSupport.reasonProblem($0) }) {
                .supportRefundBecause($0)
            }
        case .supportUnrefund:
            Self.prompt("reverse the refund of \(id): reason", history: "support reason", &context, refuse: { AppleSupport.reasonProblem($0) }) {
                .supportUnrefundBecause($0)
            }
        case .supportToken:
            Self.prompt("app account token of \(id): UUID", history: "app account token", &context, refuse: { Self.tokenProblem($0) }) {
                .supportTokenTo($0)
            }
        case .supportTokenTo(let text):
            // A bad token is refused here, in one line, before anything reaches the store.
            guard let token = AppStoreAPIError.canonicalUUID(text.trimmingCharacters(in: .whitespaces)) else {
                context.status = StatusMessage((Self.tokenProblem(text) ?? "not a UUID") + ": nothing was written", .error)
                return []
            }
            let staff = context.session.staff, at = context.clock
            return [Self.write { store in
                do {
                    try store.setAppAccountToken(token, originalTransactionId: id, by: staff, readOnly: store.isReadOnly, at: at)
                    return .support(.done("app account token of \(id) (and its chain) set to \(token)"))
                } catch let error as StoreError {
                    return .support(.refused("\(error)"))
                }
            }]
        case .supportExtend:
            Self.prompt("extend \(id): DAYS REASON-CODE (0-3)", history: "extend", &context, refuse: { Self.extensionRequest($0).refusal }) {
                .supportExtendBy($0)
            }
        case .supportRefundBecause(let reason), .supportUnrefundBecause(let reason):
            let refund = action == .supportRefundBecause(reason)
            let staff = context.session.staff, at = context.clock
            return [Self.write { store in
                do {
                    let done =
                        refund
                        ? try store.refund(id, reason: reason, appIssue: false, by: staff, at: at)
                        : try store.reverseRefund(id, reason: reason, by: staff, at: at)
                    return .support(.done("\(done.notification.notificationType.rawValue) for \(id) written to the log"))
                } catch let error as StoreError {
                    return .support(.refused("\(refund ? "not refunded" : "refund not reversed"): \(error)"))
                }
            }]
        case .supportExtendBy(let text):
            guard let request = Self.extensionRequest(text).request else { return [] }
            let staff = context.session.staff, at = context.clock
            return [Self.write { store in
                do {
                    let done = try store.extendRenewalDate(originalTransactionId: id, request, by: staff, readOnly: false, at: at)
                    return .support(.done("extended \(id) by \(done.extendByDays) days to \(done.effectiveDate.iso8601.prefix(10)) (RENEWAL_EXTENDED)"))
                } catch let error as StoreError {
                    return .support(.refused("\(error)"))
                }
            }]
        default:
            break
        }
        return []
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
