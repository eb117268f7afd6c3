import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Restores screen: the restore desk. Open prompts oldest first (or confirmed, declined, all),
/// the selected prompt's player, product, candidate accounts, owner and ownership rule in the detail
/// pane; support confirms one onto an account (choose the account, its Sid and Role_Id, then confirm)
/// or declines it with a reason, and the outcome, callback and grant then show in the detail pane.
public struct RestoresScreen: Sendable {
    /// Which prompts the list shows; `s` cycles open → confirmed → declined → all.
    public var status: RestoreStatus? = .open
    /// Text found in the transaction id, the player's id or the product id.
    public var filter = ""
    /// The list's order for this session (`o`, `O`, `:sort`): oldest prompt first unless changed.
    public var sort = ListSort("prompted")
    public var list = ListWindow<RestoreRow>()
    public var counts: [RestoreStatus: Int] = [:]
    /// Prompts of Sandbox purchases (a simulation's, Apple's test money) are hidden (`b`, `:sandbox`).
    public var hidesSandbox = false
    /// How many prompts of each status are of Sandbox purchases: what hiding them hides.
    public var sandboxCounts: [RestoreStatus: Int] = [:]
    public var detail: RestorePrompt?
    public var detailScroll = 0
    /// Choosing the account to confirm onto: the candidate under the cursor.
    public var picking: Int?
    /// A confirm being put together: the prompt, the account chosen, then its Sid and Role_Id.
    var draft: Draft?
    /// A prompt just resolved here: it stays on the list, its outcome in the detail pane, until the
    /// selection moves on (even when the status filter no longer lists it).
    var pinned: RestoreRow?
    /// The prompt a confirm or a decline is under way on (from `c` or `d` to the write): every step checks
    /// it is still the one shown, and the flow stops, saying what happened, when it is not: resolved by
    /// another desk meanwhile, or gone from the list. It never goes on with another prompt.
    var underway: String?
    /// A confirm or a decline asked while the list's page or the selected prompt was still coming (`g`
    /// then `d` typed together, on a slow store): it starts on the prompt the selection lands on once that
    /// prompt is loaded, never on the row selected before the page came. A move or Esc meanwhile drops it.
    var waiting: Action?

    /// Whether the list's page or the selected prompt is still coming.
    var loading: Bool {
        list.generation != list.shownGeneration
            || (selectedRow != nil && detail?.request.transactionId != selectedRow?.request.transactionId)
    }

    /// The confirm or decline that waited for the selected prompt, now that it is loaded.
    mutating func startWaiting(_ context: inout ScreenContext) -> [Effect] {
        guard let action = waiting, !loading else { return [] }
        waiting = nil
        return perform(action, &context)
    }

    struct Draft: Sendable {
        var transactionId: String
        var account: RestoreAccount
        var sid = ""
        var roleId = ""
    }

    public init() {}

    public var selectedRow: RestoreRow? { list.selectedRow }

    /// The statuses `s` steps through (nil: all).
    static let statuses: [RestoreStatus?] = [.open, .confirmed, .declined, nil]

    public enum Event: Sendable {
        case page(ListWindow<RestoreRow>.Page)
        case counts([RestoreStatus: Int])
        case sandboxCounts([RestoreStatus: Int])
        /// How many prompts a text filter matches (`ListPager.count`).
        case counted(ListWindow<RestoreRow>.Counted)
        case detail(RestorePrompt?)
        case resolved(Result<RestorePrompt, RestoreRefusal>)
        case loggedIn(RestoreLogin)
    }

    // MARK: - Effects

    /// The list as the store pages it: the status, the filter and the order.
    var query: RestoreQuery {
        RestoreQuery(
            status: status, text: filter, order: RestoreOrder(rawValue: sort.column) ?? .prompted, descending: sort.descending,
            environment: hidesSandbox ? .production : nil)
    }

    var source: ListWindow<RestoreRow>.Source {
        let query = query
        return { $0.restores(query) }
    }

    /// Shows what `read` reads, with the counts.
    func show(_ read: @escaping ListWindow<RestoreRow>.Read) -> [Effect] {
        [
            Self.read { store in Event.page(try read(store)) },
            Self.read { store in Event.counts(try store.restoreCounts()) },
            Self.read { store in Event.sandboxCounts(try store.sandboxRestoreCounts()) },
        ]
    }

    mutating func reload(pageSize: Int) -> [Effect] { show(list.reload(pageSize: pageSize, source: source)) + countEffect(forget: true) }

    /// The list's count: the status counts (read with every page) when there is no text filter, else nil.
    var statusCount: ListCount? {
        guard filter.isEmpty else { return nil }
        let all = status.map { counts[$0] ?? 0 } ?? counts.values.reduce(0, +)
        return .exact(hidesSandbox ? max(0, all - sandboxCount) : all)
    }

    /// The prompts of Sandbox purchases with the status shown (all of them when all are).
    var sandboxCount: Int { status.map { sandboxCounts[$0] ?? 0 } ?? sandboxCounts.values.reduce(0, +) }

    /// `title` with its word on Sandbox items: how many are hidden, or how many of those listed are
    /// Sandbox; the longest form that fits a frame `width` wide, so the count shows at 80 columns too.
    static func titled(_ title: String, sandbox n: Int, hidden: Bool, width: Int) -> String {
        let forms: [String]
        switch (n > 0, hidden) {
        case (true, true): forms = ["\(n) sandbox hidden", "\(n) sbx hidden", "−\(n) sbx"]
        case (false, true): forms = ["sandbox hidden", "sbx hidden"]
        case (true, false): forms = ["\(n) sandbox", "\(n) sbx"]
        case (false, false): return title
        }
        let room = width - 6
        let form = forms.first { (title + " · " + $0).count <= room } ?? forms[forms.count - 1]
        return title + " · " + form
    }

    /// The store's count for a text filter, read after the frame.
    mutating func countEffect(forget: Bool) -> [Effect] {
        guard statusCount == nil else { return [] }
        let read = list.countRead(source: source, forget: forget)
        return [Self.readAfterFrame { store in .counted(try read(store)) }]
    }

    func detailEffect() -> [Effect] {
        guard let id = selectedRow?.request.transactionId else { return [] }
        return [Self.read { store in Event.detail(try store.restorePrompt(transactionId: id)) }]
    }

    // MARK: - Reducer

    mutating func move(_ command: Command, pageSize: Int) -> [Effect] {
        switch list.move(command, pageSize: pageSize, source: source) {
        case .none: return []
        case .stayed:
            detailScroll = 0
            pinned = nil
            return detailEffect()
        case .read(let read):
            pinned = nil
            return show(read)
        }
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .page(var page):
            guard page.generation == list.generation else { return [] }
            if let pinned, !page.rows.contains(where: { $0.request.id == pinned.request.id }) {
                // Keep the prompt just resolved in view, in its place, until the selection moves on.
                let query = query
                let index = page.rows.firstIndex { query.precedes(pinned.cursor, $0.cursor) } ?? page.rows.count
                page.rows.insert(pinned, at: index)
                if page.rows.count > Self.listRows(context) { page.rows.removeLast() }
            }
            if list.show(page) == true { detailScroll = 0 }
            if selectedRow == nil { detail = nil }
            if let underway, selectedRow?.request.transactionId != underway {
                stopFlow("transaction \(underway)'s prompt is no longer in the list", &context)
            }
            return detailEffect() + startWaiting(&context)
        case .counts(let counts):
            self.counts = counts
            return []
        case .sandboxCounts(let counts):
            sandboxCounts = counts
            return []
        case .counted(let counted):
            list.show(counted)
            return []
        case .detail(let prompt):
            if prompt?.request.transactionId == selectedRow?.request.transactionId { detail = prompt }
            if let prompt, prompt.request.transactionId == underway, prompt.request.status != .open {
                stopFlow(RestoreRefusal.alreadyResolved(prompt.request).description, &context)
                // Its row, kept in view, says what it is now.
                if var row = selectedRow, row.request.transactionId == prompt.request.transactionId {
                    row.request = prompt.request
                    pinned = row
                    list.replace(at: list.selected, with: row)
                }
            }
            return startWaiting(&context)
        case .resolved(.success(let prompt)):
            if underway == prompt.transaction.id { underway = nil }
            detail = prompt
            detailScroll = 0
            context.focus = .list
            if let row = selectedRow, row.request.transactionId == prompt.transaction.id {
                var updated = row
                updated.request = prompt.request
                pinned = updated
                list.replace(at: list.selected, with: updated)
            }
            context.status = StatusMessage(Self.outcomeText(prompt), .success)
            return []
        case .loggedIn(let login):
            let players = login.players.map { "\($0.userId) (\($0.prompts.count))" }.joined(separator: ", ")
            context.status = StatusMessage(
                "\(login.userId) logged in: \(login.opened.count) restore prompt\(login.opened.count == 1 ? "" : "s") opened"
                    + (players.isEmpty ? ", nothing dropped" : "; open per player: " + players), .success)
            return refresh(pageSize: Self.listRows(context))
        case .resolved(.failure(let refusal)):
            underway = nil
            context.status = StatusMessage(refusal.description, .warning)
            // Another console may have resolved it: show the prompt as it is now.
            return refresh(pageSize: Self.listRows(context))
        }
    }

    mutating func refresh(pageSize: Int) -> [Effect] { show(list.refresh(pageSize: pageSize, source: source)) + countEffect(forget: false) }

    static func listRows(_ context: ScreenContext) -> Int { context.pageSize }

    /// `restored 2000… onto 10000024 s1/r… (the paying account): order 10000000001, granted …`.
    static func outcomeText(_ prompt: RestorePrompt) -> String {
        let id = prompt.transaction.id
        guard prompt.request.status == .confirmed, let target = prompt.target else {
            return "declined \(id): \(prompt.request.reason ?? "")"
        }
        let note = RestoreRules.ownershipNote(prompt.ownership, owner: prompt.payingAccount, target: target)
        let granted = prompt.delivery?.grant.map { ", granted " + ($0.kind == .product ? $0.productId : "\($0.currencyAmount) currency") } ?? ""
        return "restored \(id) onto \(target.label) (\(note)): order \(prompt.delivery?.order.id ?? "?")" + granted
    }

    /// `:login USER`: a player logs in from the console, as `storedesk login as` does.
    mutating func logIn(_ userId: String, _ context: inout ScreenContext) -> [Effect] {
        let at = context.clock
        return [Self.write { store in .loggedIn(try store.recordLogin(userId: userId, at: at)) }]
    }

    // MARK: - Confirm and decline

    /// The selected prompt, when it is open and loaded; otherwise says why not.
    func openPrompt(_ context: inout ScreenContext) -> RestorePrompt? {
        guard let prompt = detail, prompt.request.transactionId == selectedRow?.request.transactionId else {
            context.status = StatusMessage("no restore prompt selected", .info)
            return nil
        }
        guard prompt.request.status == .open else {
            context.status = StatusMessage(RestoreRefusal.alreadyResolved(prompt.request).description, .warning)
            return nil
        }
        return prompt
    }

    /// Starts a confirm or a decline on `prompt`: the flow is bound to it, and its row stays in the list
    /// (as a resolved one does) so a refresh never puts another prompt under the flow.
    mutating func begin(_ prompt: RestorePrompt) {
        underway = prompt.transaction.id
        if let row = selectedRow, row.request.transactionId == prompt.transaction.id { pinned = row }
    }

    /// Whether a confirm or a decline is waiting on the person: the account picker, or one of this
    /// screen's prompts on the status line.
    func flowOpen(_ context: ScreenContext) -> Bool {
        if picking != nil { return true }
        if case .prompt(let prompt) = context.mode, prompt.screen == Self.id { return true }
        return false
    }

    /// The flow under way stops, nothing written, saying why (`what` happened to its prompt).
    mutating func stopFlow(_ what: String, _ context: inout ScreenContext) {
        guard let id = underway else { return }
        let open = flowOpen(context)
        underway = nil
        picking = nil
        draft = nil
        guard open else { return }
        if case .prompt = context.mode { context.mode = .normal }
        context.status = StatusMessage("stopped the confirm or decline of \(id): \(what); nothing was written", .warning)
    }

    /// The prompt the flow under way is bound to, when it is still the one shown and open; otherwise
    /// the flow stops, saying why, and nil.
    mutating func subject(_ context: inout ScreenContext) -> RestorePrompt? {
        guard let id = underway else { return nil }
        guard let prompt = detail, prompt.transaction.id == id, selectedRow?.request.transactionId == id else {
            stopFlow("the selection is no longer transaction \(id)'s prompt", &context)
            return nil
        }
        guard prompt.request.status == .open else {
            stopFlow(RestoreRefusal.alreadyResolved(prompt.request).description, &context)
            return nil
        }
        return prompt
    }

    /// The account picker's keys: move, choose, or cancel. Every other key is swallowed while it is open.
    mutating func pick(_ key: Key, _ context: inout ScreenContext) -> [Effect] {
        guard let index = picking, let prompt = subject(&context) else {
            picking = nil
            return []
        }
        switch key {
        // A move is an action of its own: a refusal of the last pick gives way to how to pick.
        case .character("j"), .down, .character("k"), .up:
            let down = key == .character("j") || key == .down
            picking = down ? min(index + 1, prompt.candidates.count - 1) : max(0, index - 1)
            context.status = Self.pickingHint(prompt)
        case .escape:
            picking = nil
            draft = nil
            underway = nil
            context.status = StatusMessage("confirm: cancelled")
        case .enter:
            let account = prompt.candidates[index]
            // An account the rules refuse is refused here, at the pick, before its Sid and Role_Id.
            if let refusal = RestoreRules.accountRefusal(prompt, onto: account) {
                context.status = StatusMessage(refusal.description, .warning)
                return []
            }
            picking = nil
            draft = Draft(transactionId: prompt.transaction.id, account: account)
            Self.prompt("Sid for \(account.label)", text: account.sid, history: "Sid", &context, refuse: Self.sidRefusal) { .confirmSid($0) }
        default:
            break
        }
        return []
    }

    static func trimmed(_ text: String) -> String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Why a Sid typed at the confirm's prompt is refused (`restoreProduct`'s rule for the field), or nil.
    @Sendable static func sidRefusal(_ text: String) -> String? {
        guard case .failure(let refused) = PurchaseRequest.validate(.init(sid: text)) else { return nil }
        let sid = refused.refusals.filter { $0.field == "Sid" }
        return sid.isEmpty ? nil : "restoreProduct refused: " + sid.map(\.reason).joined(separator: "; ")
    }

    /// Why a decline's reason is refused: it needs one the player can be told.
    @Sendable static func reasonRefusal(_ text: String) -> String? {
        trimmed(text).isEmpty ? RestoreRefusal.reasonMissing.description : nil
    }

    /// What the status line says while the account is being chosen.
    static func pickingHint(_ prompt: RestorePrompt) -> StatusMessage {
        StatusMessage("confirm \(prompt.transaction.id): choose the account (j/k, enter), esc cancels")
    }

    /// The answers to the confirm's and the decline's prompts.
    mutating func answer(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .confirmSid(let text):
            guard var draft, let prompt = subject(&context), prompt.transaction.id == draft.transactionId else { return [] }
            draft.sid = text
            self.draft = draft
            let userId = draft.account.userId, sid = text
            Self.prompt("Role_Id on \(text)", text: draft.account.roleId, history: "Role_Id", &context, refuse: { roleId in
                // The account Sid and Role_Id name must be one the rules let the purchase go to.
                RestoreRules.accountRefusal(prompt, onto: RestoreAccount(userId: userId, sid: sid, roleId: roleId))?.description
            }) { .confirmRole($0) }
        case .confirmRole(let text):
            guard var draft, let prompt = subject(&context), prompt.transaction.id == draft.transactionId else { return [] }
            draft.roleId = text
            self.draft = draft
            let target = RestoreAccount(userId: draft.account.userId, sid: draft.sid, roleId: draft.roleId)
            let note = RestoreRules.ownershipNote(prompt.ownership, owner: prompt.payingAccount, target: target)
            Self.prompt("restore \(draft.transactionId) onto \(target.label) (\(note))? y/n", kind: .yesNo, &context) { .confirmGo($0) }
        case .confirmGo(let text):
            guard let draft, let prompt = subject(&context), prompt.transaction.id == draft.transactionId else { return [] }
            self.draft = nil
            guard ["y", "yes"].contains(text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                underway = nil
                context.status = StatusMessage("confirm: cancelled, nothing was written")
                return []
            }
            let target = RestoreAccount(userId: draft.account.userId, sid: draft.sid, roleId: draft.roleId)
            let id = draft.transactionId, staff = context.session.staff, at = context.clock
            return [Self.write { store in
                do {
                    return .resolved(.success(try store.confirmRestore(transactionId: id, onto: target, by: staff, at: at)))
                } catch let refusal as RestoreRefusal {
                    return .resolved(.failure(refusal))
                }
            }]
        case .declineReason(let text):
            // The exact reason that will be saved, shown before it is.
            guard let prompt = subject(&context) else { return [] }
            let reason = Self.trimmed(text)
            Self.prompt("decline \(prompt.transaction.id) with the reason “\(reason)”? y/n", kind: .yesNo, &context) {
                .declineGo(reason: reason, answer: $0)
            }
        case .declineGo(let reason, let answer):
            guard let prompt = subject(&context) else { return [] }
            guard ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                underway = nil
                context.status = StatusMessage("decline: cancelled, nothing was written")
                return []
            }
            let text = reason, id = prompt.transaction.id, staff = context.session.staff, at = context.clock
            return [Self.write { store in
                do {
                    return .resolved(.success(try store.declineRestore(transactionId: id, reason: text, by: staff, at: at)))
                } catch let refusal as RestoreRefusal {
                    return .resolved(.failure(refusal))
                }
            }]
        default:
            break
        }
        return []
    }
}
