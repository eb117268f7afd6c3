import Foundation
import StoreDeskCore

extension TimelineBar.Kind {
    /// The theme role a kind is drawn in: the subscription states' own, so every theme colours the bar
    /// as it colours the states in the lists.
    public var role: Role {
        switch self {
        case .paid, .trial, .offer: .subscriptionActive
        case .grace: .subscriptionGrace
        case .retry: .subscriptionRetry
        case .expired: .subscriptionExpired
        case .refunded, .revoked: .subscriptionRevoked
        }
    }
}

extension TimelineBar {
    /// The bar as spans: runs of one kind in its role, the clock in the title's.
    public func spans(width: Int, glyphs: Glyphs) -> [Span] {
        var spans: [Span] = []
        for cell in cells(width: width) {
            let role: Role = switch cell {
            case .none: .text
            case .kind(let kind): kind.role
            case .clock: .title
            }
            let character = String(Self.character(cell, glyphs))
            if let last = spans.last, last.role == role {
                spans[spans.count - 1].text += character
            } else {
                spans.append(Span(character, role))
            }
        }
        return spans
    }
}

extension DetailText {
    /// A subscription's bar `width` columns wide, its axis (muted) and its legend, each entry in its
    /// kind's role and named in words (so NO_COLOR reads the same), wrapped to `width`.
    public mutating func timelineBar(_ bar: TimelineBar, width: Int, glyphs: TimelineBar.Glyphs, zone: TimeZone, indent: Int = 0) {
        let margin = indent > 0 ? [Span(String(repeating: " ", count: indent), .text)] : []
        func line(_ spans: [Span]) { self.line(margin + spans) }
        line(bar.spans(width: width, glyphs: glyphs))
        line([Span(bar.axis(width: width, zone: zone), .muted)])
        var legend: [Span] = []
        var used = 0
        for (kind, entry) in bar.legend(width: width, glyphs: glyphs) {
            let columns = entry.count + (legend.isEmpty ? 0 : 2)
            if !legend.isEmpty, used + columns > width {
                line(legend)
                legend = []
                used = 0
            }
            if !legend.isEmpty { legend.append(Span("  ", .text)) }
            legend.append(Span(entry, kind?.role ?? .title))
            used += entry.count + (legend.count > 1 ? 2 : 0)
        }
        if !legend.isEmpty { line(legend) }
    }
}
