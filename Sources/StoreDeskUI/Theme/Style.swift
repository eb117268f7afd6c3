/// A semantic style role: what a piece of text is, not how it looks. Themes map roles to styles.
public enum Role: String, CaseIterable, Sendable, Hashable, Codable {
    case text
    case muted
    case title
    case header
    case headerBadge = "header.badge"
    case readOnlyBadge = "badge.readonly"
    case tab
    case tabActive = "tab.active"
    case border
    case borderFocused = "border.focused"
    case listHeader = "list.header"
    case listSelected = "list.selected"
    case listSelectedUnfocused = "list.selected.unfocused"
    case detailLabel = "detail.label"
    case detailValue = "detail.value"
    case masked
    case footerKey = "footer.key"
    case footerText = "footer.text"
    case statusInfo = "status.info"
    case statusSuccess = "status.success"
    case statusWarning = "status.warning"
    case statusError = "status.error"
    case helpKey = "help.key"
    case helpText = "help.text"
    case helpDisabled = "help.disabled"
    case input
    case match
    case statePurchasing = "state.purchasing"
    case statePurchased = "state.purchased"
    case stateFailed = "state.failed"
    case stateRestored = "state.restored"
    case stateDeferred = "state.deferred"
    case subscriptionActive = "subscription.active"
    case subscriptionGrace = "subscription.grace_period"
    case subscriptionRetry = "subscription.billing_retry"
    case subscriptionExpired = "subscription.expired"
    case subscriptionRevoked = "subscription.revoked"
}

/// A colour as a theme names it; the terminal layer degrades it to what the terminal can show.
public enum Color: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case terminalDefault
    /// One of the 256 indexed colours (0-15 are the ANSI colours).
    case indexed(UInt8)
    case rgb(UInt8, UInt8, UInt8)

    public static let black = Color.indexed(0), red = Color.indexed(1), green = Color.indexed(2)
    public static let yellow = Color.indexed(3), blue = Color.indexed(4), magenta = Color.indexed(5)
    public static let cyan = Color.indexed(6), white = Color.indexed(7)

    /// The closest colour a terminal of the given depth can show (truecolor → 256 → 8).
    public func degraded(to depth: ColorDepth) -> Color {
        switch (self, depth) {
        case (.terminalDefault, _), (_, .trueColor): return self
        case (.rgb(let r, let g, let b), .indexed256): return .indexed(Color.nearest256(r, g, b))
        case (.rgb(let r, let g, let b), .ansi8): return .indexed(Color.nearest8(r, g, b))
        case (.indexed(let i), .indexed256): return .indexed(i)
        case (.indexed(let i), .ansi8):
            if i < 8 { return self }
            if i < 16 { return .indexed(i - 8) }
            let (r, g, b) = Color.rgbOf256(i)
            return .indexed(Color.nearest8(r, g, b))
        case (_, .mono): return .terminalDefault
        }
    }

    static let cubeLevels: [Int] = [0, 95, 135, 175, 215, 255]

    static func rgbOf256(_ i: UInt8) -> (UInt8, UInt8, UInt8) {
        let n = Int(i)
        if n < 16 {
            let table: [(UInt8, UInt8, UInt8)] = [
                (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
                (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
                (255, 0, 255), (0, 255, 255), (255, 255, 255),
            ]
            return table[n]
        }
        if n >= 232 {
            let v = UInt8(8 + (n - 232) * 10)
            return (v, v, v)
        }
        let c = n - 16
        return (UInt8(cubeLevels[c / 36]), UInt8(cubeLevels[(c / 6) % 6]), UInt8(cubeLevels[c % 6]))
    }

    static func nearest256(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        func level(_ v: UInt8) -> Int {
            var best = 0
            for (i, l) in cubeLevels.enumerated() where abs(l - Int(v)) < abs(cubeLevels[best] - Int(v)) { best = i }
            return best
        }
        let cube = 16 + 36 * level(r) + 6 * level(g) + level(b)
        let average = (Int(r) + Int(g) + Int(b)) / 3
        let grey = average > 238 ? 255 : 232 + max(0, min(23, (average - 3) / 10))
        func distance(_ index: Int) -> Int {
            let (cr, cg, cb) = rgbOf256(UInt8(index))
            let dr = Int(cr) - Int(r), dg = Int(cg) - Int(g), db = Int(cb) - Int(b)
            return dr * dr + dg * dg + db * db
        }
        let greyIndex = grey == 255 ? 231 : grey
        return UInt8(distance(greyIndex) < distance(cube) ? greyIndex : cube)
    }

    static func nearest8(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let hi = max(r, g, b)
        if hi < 64 { return 0 }
        let threshold = UInt8(Double(hi) * 0.6)
        let bits = (r >= threshold ? 1 : 0) | (g >= threshold ? 2 : 0) | (b >= threshold ? 4 : 0)
        return UInt8(bits)
    }
}

/// How many colours the terminal can show.
public enum ColorDepth: Sendable, Hashable {
    case mono, ansi8, indexed256, trueColor
}

/// How one role looks.
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var bold: Bool
    public var underline: Bool
    public var reverse: Bool
    public var dim: Bool
    public var italic: Bool

    public init(
        foreground: Color = .terminalDefault, background: Color = .terminalDefault, bold: Bool = false,
        underline: Bool = false, reverse: Bool = false, dim: Bool = false, italic: Bool = false
    ) {
        self.foreground = foreground
        self.background = background
        self.bold = bold
        self.underline = underline
        self.reverse = reverse
        self.dim = dim
        self.italic = italic
    }
}
