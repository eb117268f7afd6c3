import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension ScreenID {
    public static let audit = AuditScreen.id
}

/// The Audit screen: the audit log newest first (every confirm, decline, reveal and change, with
/// name, role and time), filtered as you type, the selected entry in full in the detail pane.
///
/// The smallest list screen, and the one to copy: its state here, its update (entry points and
/// effects) in `AuditScreen+Update.swift`, its view in `AuditScreen+View.swift`.
public struct AuditScreen: ConsoleScreen {
    public static let id = ScreenID("audit")
    public static let title = "Audit"

    /// `action:restore actor:li.support words`: an action or family, a name, the rest found anywhere.
    public var filter = ""
    /// Newest first, or oldest first (`O`, `:sort when asc`), for the session.
    public var sort = ListSort("when", descending: true)
    public var list = ListWindow<AuditEntry>()
    public var detailScroll = 0

    public init() {}

    /// What this screen's effects bring back.
    public enum Action: Sendable, Equatable {
        case sort(ListSort.Change)
        case export(ExportRequest)
    }

    /// The audit log runs on its sequence (`id`), either way.
    public static let sortable = ["when"]

    public static let commands: [ScreenCommand<AuditScreen>] =
        [.reverseSort(.sort(.reverse), sortable: sortable) { .sort(.to($0)) }] + ScreenCommand.export(noun: "audit entries") { .export($0) }

    public enum Event: Sendable {
        case page(ListWindow<AuditEntry>.Page)
        case counted(ListWindow<AuditEntry>.Counted)
    }

    /// The filter as a query: `action:` and `actor:` words, the rest matched as text.
    public static func query(_ filter: String) -> AuditQuery {
        var action: String?, actor: String?, words: [String] = []
        for word in filter.split(separator: " ").map(String.init) {
            if word.hasPrefix("action:"), word.count > 7 {
                action = String(word.dropFirst(7))
            } else if word.hasPrefix("actor:"), word.count > 6 {
                actor = String(word.dropFirst(6))
            } else {
                words.append(word)
            }
        }
        return AuditQuery(action: action, actor: actor, text: words.joined(separator: " "))
    }
}
