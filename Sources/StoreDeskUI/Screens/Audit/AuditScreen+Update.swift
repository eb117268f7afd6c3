import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The Audit screen's update: its entry points, the reads they ask for, and what their results do.
extension AuditScreen {
    public var filterText: String? { filter }

    var source: ListWindow<AuditEntry>.Source {
        var query = Self.query(filter)
        query.oldestFirst = !sort.descending
        return { [query] in $0.audit(query) }
    }

    func show(_ read: @escaping ListWindow<AuditEntry>.Read) -> [Effect] {
        [Self.read { store in Event.page(try read(store)) }]
    }

    /// How many entries the filter matches, read after the frame.
    mutating func countEffect(forget: Bool) -> Effect {
        let read = list.countRead(source: source, forget: forget)
        return Self.readAfterFrame { store in .counted(try read(store)) }
    }

    public mutating func start(_ context: inout ScreenContext) -> [Effect] {
        show(list.reload(pageSize: context.pageSize, source: source)) + [countEffect(forget: true)]
    }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] {
        show(list.refresh(pageSize: context.pageSize, source: source)) + [countEffect(forget: false)]
    }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        guard text != filter else { return [] }
        filter = text
        return start(&context)
    }

    public mutating func apply(_ event: Event, _ context: inout ScreenContext) -> [Effect] {
        switch event {
        case .page(let page):
            if list.show(page) == true { detailScroll = 0 }
            return []
        case .counted(let counted):
            list.show(counted)
            return []
        }
    }

    public var sortColumns: [String] { Self.sortable }

    public mutating func perform(_ action: Action, _ context: inout ScreenContext) -> [Effect] {
        switch action {
        case .sort(let change): sort = sort.changed(by: change, sortable: Self.sortable)
        case .export(let request): return request.effects(source, noun: "audit entries")
        }
        context.status = StatusMessage("audit log sorted by \(sort.label)", .info)
        return show(list.reload(pageSize: context.pageSize, source: source))
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if context.scrollsDetail(command, &detailScroll) { return [] }
            switch list.move(command, pageSize: context.pageSize, source: source) {
            case .none: return []
            case .stayed:
                detailScroll = 0
                return []
            case .read(let read): return show(read)
            }
        case .open:
            context.focus = .detail
            return []
        default:
            return []
        }
    }
}
