import Foundation
import StoreDeskCore

/// One row of the `:codes` screen: a number an operator meets in a log, a ticket or a notification, where
/// it comes from, its name and its meaning.
public struct CodeRow: Sendable, Hashable {
    /// The component that reports it: `subscription`, `one-click login`.
    public var source: String
    /// The list inside the component: `InAppPurchaseError`, `SKError code`, `expirationIntent`.
    public var family: String
    /// The family in a few letters, for the list's column: `IAPError`, `intent`.
    public var tag: String
    /// The code as it is written: a number, or the carrier's six digits.
    public var code: String
    public var name: String
    public var meaning: String

    public init(source: String, family: String, tag: String, code: String, name: String, meaning: String) {
        self.source = source
        self.family = family
        self.tag = tag
        self.code = code
        self.name = name
        self.meaning = meaning
    }

    init(_ code: SubscriptionCode) {
        let tag = switch code.family {
        case .inAppPurchaseError: "IAPError"
        case .skError: "SKError"
        case .expirationIntent: "intent"
        case .revocationReason: "revocation"
        case .subscriptionStatus: "status"
        case .offerType: "offerType"
        case .autoRenewStatus: "autoRenew"
        case .priceIncreaseStatus: "priceRise"
        }
        self.init(
            source: "subscription", family: code.family.title, tag: tag, code: String(code.code), name: code.name,
            meaning: code.meaning)
    }

    /// The code itself exactly, or a case-insensitive piece of anything else; empty matches all.
    public func matches(_ query: String) -> Bool {
        let needle = query.trimmingCharacters(in: .whitespaces).lowercased()
        if needle.isEmpty || code == needle { return true }
        return [source, family, name, meaning].contains { $0.lowercased().contains(needle) }
    }
}

/// The `:codes` screen: every code the console explains, searchable with `/` by number, name or meaning.
///
/// The rows come from `CodesScreen.sources`: the subscription component's (its InAppPurchaseError codes,
/// StoreKit's SKError codes and Apple's notification numbers, `SubscriptionCodes`), then the carrier's
/// one-click login result codes (`OneTapResultCode.table`, the same table the One-tap screen shows).
public struct CodesScreen: Sendable {
    /// Every source of codes, in the order the list shows them.
    public static let sources: [[CodeRow]] = [
        SubscriptionCodes.all.map(CodeRow.init),
        OneTapResultCode.table.map {
            CodeRow(
                source: "one-click login", family: "result code", tag: "one-click", code: $0.code, name: $0.carrierText,
                meaning: $0.meaning)
        },
    ]

    public static let all: [CodeRow] = sources.flatMap { $0 }

    public var filter = ""
    /// The rows matching the filter.
    public var rows: [CodeRow] = CodesScreen.all
    public var selected = 0
    /// The first row shown.
    public var top = 0
    public var detailScroll = 0

    public init() {}

    public var selectedRow: CodeRow? { rows.indices.contains(selected) ? rows[selected] : nil }

    mutating func apply(filter text: String) {
        filter = text
        rows = Self.all.filter { $0.matches(text) }
        selected = 0
        top = 0
        detailScroll = 0
    }

    /// Moves the selection, keeping it inside a window of `page` rows.
    mutating func move(_ command: Command, page: Int) {
        let last = max(0, rows.count - 1)
        switch command {
        case .up: selected = max(0, selected - 1)
        case .down: selected = min(last, selected + 1)
        case .pageUp: selected = max(0, selected - page)
        case .pageDown: selected = min(last, selected + page)
        case .top: selected = 0
        case .bottom: selected = last
        default: return
        }
        detailScroll = 0
        if selected < top { top = selected }
        if selected >= top + page { top = selected - page + 1 }
    }
}
