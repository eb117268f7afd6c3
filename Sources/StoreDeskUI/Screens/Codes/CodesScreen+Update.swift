import Foundation
import StoreDeskCore

extension ScreenID {
    public static let codes = CodesScreen.id
}

/// The Codes screen in the console: a list held in memory (no store reads), filtered as you type.
extension CodesScreen: ConsoleScreen {
    public static let id = ScreenID("codes")
    public static let title = "Codes"

    public var filterText: String? { filter }

    public mutating func refresh(_ context: inout ScreenContext) -> [Effect] { [] }

    public mutating func setFilter(_ text: String, _ context: inout ScreenContext) -> [Effect] {
        apply(filter: text)
        return []
    }

    /// `:select 30006`: the filter set to that code.
    public mutating func select(id: String, _ context: inout ScreenContext) -> [Effect] {
        apply(filter: id)
        if rows.isEmpty { context.status = StatusMessage("no code matches '\(id)'", .warning) }
        return []
    }

    public mutating func perform(_ command: Command, _ context: inout ScreenContext) -> [Effect] {
        switch command {
        case .up, .down, .top, .bottom, .pageUp, .pageDown:
            if !context.scrollsDetail(command, &detailScroll) { move(command, page: context.pageSize) }
        case .open:
            context.focus = .detail
        default:
            break
        }
        return []
    }
}
