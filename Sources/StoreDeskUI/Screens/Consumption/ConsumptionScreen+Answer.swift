import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// Answering a consumption request at the prompt: one prompt a field of Apple's `ConsumptionInformation`,
/// each with its codes in the question and a suggestion `enter` takes, each refused in one line when out of
/// Apple's range; then the whole answer shown for a `y`. Nothing is written before that `y`.
extension ConsumptionScreen {
    /// The answers typed so far for one request.
    struct AnswerDraft: Sendable, Equatable {
        var transactionId: String
        var answers: [String] = []
    }

    /// One field's prompt.
    struct AnswerStep: Sendable {
        var label: String
        var suggestion: String
        var kind: Prompt.Kind
        /// Why a typed answer is refused, or nil.
        var refuse: @Sendable (String) -> String?
    }

    /// `0-3`-style field: a whole number in `range`, named in the refusal.
    static func code(_ name: String, _ range: ClosedRange<Int>, optional: Bool = false) -> @Sendable (String) -> String? {
        { text in
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if optional && trimmed.isEmpty { return nil }
            guard let value = Int(trimmed), range.contains(value) else {
                return "\(name) must be \(range.lowerBound)-\(range.upperBound)\(optional ? " or empty" : ""), got '\(trimmed)'"
            }
            return nil
        }
    }

    /// Four of Apple's 0-7 bands: account tenure, play time, lifetime dollars refunded and purchased.
    @Sendable static func bandsRefusal(_ text: String) -> String? {
        let words = text.split(separator: " ")
        guard words.count == 4, words.allSatisfy({ Int($0).map { (0...7).contains($0) } ?? false }) else {
            return "type four bands 0-7 (tenure, play time, refunded, purchased), e.g. 3 4 0 2; got '\(text)'"
        }
        return nil
    }

    /// A UUID or nothing.
    @Sendable static func tokenRefusal(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || UUID(uuidString: trimmed) != nil ? nil : "the app account token must be a UUID or empty, got '\(trimmed)'"
    }

    /// The fields in the order they are asked, before the final `y`.
    static let answerSteps: [AnswerStep] = [
        AnswerStep(label: "did the player consent to share consumption data with Apple? y/n", suggestion: "", kind: .yesNo) { _ in nil },
        AnswerStep(
            label: "consumption status: 0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed", suggestion: "0",
            kind: .text, refuse: code("consumption status", 0...3)),
        AnswerStep(label: "platform: 0 undeclared, 1 Apple, 2 non-Apple", suggestion: "1", kind: .text, refuse: code("platform", 0...2)),
        AnswerStep(label: "was a sample or trial of the content provided? y/n", suggestion: "", kind: .yesNo) { _ in nil },
        AnswerStep(
            label: "delivery status: 0 delivered and working, 1 quality issue, 2 wrong item, 3 server outage, 4 currency change, 5 other",
            suggestion: "0", kind: .text, refuse: code("delivery status", 0...5)),
        AnswerStep(label: "app account token (a UUID, empty when the player has none)", suggestion: "", kind: .text, refuse: tokenRefusal),
        AnswerStep(
            label: "account tenure, play time, lifetime $ refunded, lifetime $ purchased (Apple's bands 0-7)", suggestion: "0 0 0 0",
            kind: .text, refuse: bandsRefusal),
        AnswerStep(
            label: "user status: 0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access", suggestion: "1", kind: .text,
            refuse: code("user status", 0...4)),
        AnswerStep(
            label: "refund preference: 0 undeclared, 1 grant, 2 decline, 3 no preference (empty: none)", suggestion: "", kind: .text,
            refuse: code("refund preference", 0...3, optional: true)),
    ]

    /// Why the answers are not consumption information Apple would take.
    struct AnswerRefusal: Error, Sendable {
        var text: String
    }

    /// The answers as Apple's consumption information, or what Apple would refuse in it.
    static func information(_ answers: [String]) -> Result<ConsumptionInformation, AnswerRefusal> {
        guard answers.count == answerSteps.count else { return .failure(AnswerRefusal(text: "the answer is incomplete: nothing was sent")) }
        func int(_ i: Int) -> Int { Int(answers[i].trimmingCharacters(in: .whitespaces)) ?? -1 }
        let bands = answers[6].split(separator: " ").compactMap { Int($0) }
        guard bands.count == 4 else { return .failure(AnswerRefusal(text: "the bands are incomplete: nothing was sent")) }
        let preference = answers[8].trimmingCharacters(in: .whitespaces)
        do throws(AppStoreAPIError) {
            return .success(
                try ConsumptionInformation(
                    customerConsented: answers[0] == "y", consumptionStatus: int(1), platform: int(2), sampleContentProvided: answers[3] == "y",
                    deliveryStatus: int(4), appAccountToken: answers[5].trimmingCharacters(in: .whitespaces).uppercased(),
                    accountTenure: bands[0], playTime: bands[1], lifetimeDollarsRefunded: bands[2], lifetimeDollarsPurchased: bands[3],
                    userStatus: int(7), refundPreference: preference.isEmpty ? nil : int(8)))
        } catch {
            return .failure(AnswerRefusal(text: "consumption information refused: \(error.errorMessage) (\(error.errorCode)): nothing was sent"))
        }
    }

    /// `consumed 3 · platform 1 · delivery 0 · …`: the answer in one line for the final question.
    static func summary(_ info: ConsumptionInformation) -> String {
        var parts = [
            "consumed \(info.consumptionStatus)", "platform \(info.platform)", "sample \(info.sampleContentProvided ? "yes" : "no")",
            "delivery \(info.deliveryStatus)",
            "bands \(info.accountTenure) \(info.playTime) \(info.lifetimeDollarsRefunded) \(info.lifetimeDollarsPurchased)",
            "user \(info.userStatus)",
        ]
        if !info.appAccountToken.isEmpty { parts.append("token \(info.appAccountToken)") }
        if let preference = info.refundPreference { parts.append("preference \(preference)") }
        return parts.joined(separator: " · ")
    }

    /// Asks the next field of the draft, or the final question once every field is in.
    mutating func askNext(_ context: inout ScreenContext) {
        guard let draft else { return }
        let id = draft.transactionId
        if draft.answers.count < Self.answerSteps.count {
            let step = Self.answerSteps[draft.answers.count]
            let index = draft.answers.count
            Self.prompt(
                "answer \(id) (\(index + 1)/\(Self.answerSteps.count)): \(step.label)", text: step.suggestion, kind: step.kind, &context,
                refuse: step.refuse
            ) { .answerField(index, $0) }
            return
        }
        switch Self.information(draft.answers) {
        case .success(let info):
            Self.prompt("send consumption information for \(id) (\(Self.summary(info)))? y/n", kind: .yesNo, &context) { .answerSend($0) }
        case .failure(let refusal):
            self.draft = nil
            context.status = StatusMessage(refusal.text, .error)
        }
    }

    /// One field typed: kept, and the next asked (a `n` to consent ends it: Apple takes none without).
    mutating func answered(field index: Int, _ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard var draft, draft.answers.count == index else { return [] }
        if index == 0 && text != "y" {
            self.draft = nil
            context.status = StatusMessage("not answered: Apple takes consumption information only with the player's consent; nothing was sent", .warning)
            return []
        }
        draft.answers.append(text.trimmingCharacters(in: .whitespaces))
        self.draft = draft
        askNext(&context)
        return []
    }

    /// The final `y`: the answer written as the console's staff member (audited), or nothing on `n`.
    mutating func send(_ answer: String, _ context: inout ScreenContext) -> [Effect] {
        guard let draft else { return [] }
        self.draft = nil
        guard answer == "y" else {
            context.status = StatusMessage("answer: cancelled, nothing was sent")
            return []
        }
        guard case .success(let info) = Self.information(draft.answers) else { return [] }
        let id = draft.transactionId, staff = context.session.staff, at = context.clock
        return [Self.write { store in
            do {
                try AppleSupportWrites.check(staff, readOnly: store.isReadOnly, reason: nil)
                let done = try store.answerConsumption(transactionId: id, info, by: AuditActor(staff), at: at)
                let late = done.answeredAt.map { $0 > done.deadline } ?? false
                return .written(.done("consumption information for \(id) sent\(late ? " after the deadline (answered late)" : "") by \(staff.name)"), select: id)
            } catch let error as StoreError {
                return .written(.refused("not answered: \(error)"), select: id)
            }
        }]
    }
}
