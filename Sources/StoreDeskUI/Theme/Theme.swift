import Foundation
import TOMLKit

/// How every role looks: a theme file's `[roles]` over its `[palette]`, on top of built-in defaults.
///
/// Every role has a built-in style, so a theme that leaves a role out still draws it; an unknown key
/// only warns. `Theme.mono` keeps bold, reverse and underline for `NO_COLOR` terminals.
///
///     let (theme, warnings) = try Theme.parse(text, file: "Themes/dark.toml")
public struct Theme: Sendable, Equatable {
    public var name: String
    public var styles: [Role: Style]

    public init(name: String, styles: [Role: Style]) {
        self.name = name
        self.styles = styles
    }

    public func style(_ role: Role) -> Style { styles[role] ?? Theme.builtInDefault.styles[role] ?? Style() }

    /// The dark default (the same as `Themes/dark.toml`, which a test keeps in step), used without
    /// reading any file, and the fallback for every role a theme file leaves out.
    public static let builtInDefault: Theme = {
        let fg = Color.rgb(0xd0, 0xd4, 0xdc)
        let dim = Color.rgb(0x80, 0x88, 0x96)
        let faint = Color.rgb(0x5c, 0x63, 0x70)
        let accent = Color.rgb(0x61, 0xaf, 0xef)
        let panel = Color.rgb(0x2c, 0x31, 0x3a)
        let ink = Color.rgb(0x1e, 0x21, 0x27)
        let green = Color.rgb(0x98, 0xc3, 0x79)
        let red = Color.rgb(0xe0, 0x6c, 0x75)
        let yellow = Color.rgb(0xe5, 0xc0, 0x7b)
        let orange = Color.rgb(0xd1, 0x9a, 0x66)
        let magenta = Color.rgb(0xc6, 0x78, 0xdd)
        let cyan = Color.rgb(0x56, 0xb6, 0xc2)
        var s: [Role: Style] = [:]
        s[.text] = Style(foreground: fg)
        s[.muted] = Style(foreground: dim)
        s[.title] = Style(foreground: accent, bold: true)
        s[.header] = Style(foreground: fg, background: panel)
        s[.headerBadge] = Style(foreground: ink, background: accent, bold: true)
        s[.readOnlyBadge] = Style(foreground: ink, background: yellow, bold: true)
        s[.tab] = Style(foreground: dim)
        s[.tabActive] = Style(foreground: accent, bold: true, underline: true)
        s[.border] = Style(foreground: faint)
        s[.borderFocused] = Style(foreground: accent)
        s[.listHeader] = Style(foreground: dim, bold: true)
        s[.listSelected] = Style(foreground: ink, background: accent, bold: true)
        s[.listSelectedUnfocused] = Style(foreground: fg, background: panel)
        s[.detailLabel] = Style(foreground: dim)
        s[.detailValue] = Style(foreground: fg)
        s[.masked] = Style(foreground: yellow)
        s[.footerKey] = Style(foreground: accent, bold: true)
        s[.footerText] = Style(foreground: dim)
        s[.statusInfo] = Style(foreground: fg)
        s[.statusSuccess] = Style(foreground: green)
        s[.statusWarning] = Style(foreground: yellow)
        s[.statusError] = Style(foreground: red, bold: true)
        s[.helpKey] = Style(foreground: accent, bold: true)
        s[.helpText] = Style(foreground: fg)
        s[.helpDisabled] = Style(foreground: faint, dim: true)
        s[.input] = Style(foreground: fg, underline: true)
        s[.match] = Style(foreground: yellow, bold: true)
        s[.statePurchasing] = Style(foreground: cyan)
        s[.statePurchased] = Style(foreground: green)
        s[.stateFailed] = Style(foreground: red)
        s[.stateRestored] = Style(foreground: magenta)
        s[.stateDeferred] = Style(foreground: yellow)
        s[.subscriptionActive] = Style(foreground: green, bold: true)
        s[.subscriptionGrace] = Style(foreground: yellow, bold: true)
        s[.subscriptionRetry] = Style(foreground: orange)
        s[.subscriptionExpired] = Style(foreground: dim)
        s[.subscriptionRevoked] = Style(foreground: red, bold: true)
        return Theme(name: "dark", styles: s)
    }()

    /// No colour at all: attributes only, so selection and state still stand out.
    public static let mono: Theme = {
        var s: [Role: Style] = [:]
        for role in Role.allCases { s[role] = Style() }
        s[.title] = Style(bold: true)
        s[.header] = Style(reverse: true)
        s[.headerBadge] = Style(bold: true)
        s[.readOnlyBadge] = Style(bold: true, underline: true)
        s[.tabActive] = Style(bold: true, underline: true)
        s[.borderFocused] = Style(bold: true)
        s[.listHeader] = Style(underline: true)
        s[.listSelected] = Style(bold: true, reverse: true)
        s[.listSelectedUnfocused] = Style(reverse: true)
        s[.masked] = Style(underline: true)
        s[.footerKey] = Style(bold: true)
        s[.statusError] = Style(bold: true)
        s[.statusWarning] = Style(bold: true)
        s[.helpKey] = Style(bold: true)
        s[.helpDisabled] = Style(dim: true)
        s[.input] = Style(underline: true)
        s[.match] = Style(bold: true, underline: true)
        s[.stateFailed] = Style(bold: true)
        s[.subscriptionActive] = Style(bold: true)
        s[.subscriptionRevoked] = Style(bold: true, underline: true)
        s[.subscriptionGrace] = Style(underline: true)
        return Theme(name: "mono", styles: s)
    }()
}

/// A theme file that cannot be used, said in one line with file and line.
public struct ThemeError: Error, Equatable, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int?
    public var message: String
    public var description: String { line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)" }
}

extension Theme {
    /// Parses a theme file. Unknown keys and unusable values become warnings and fall back; text that
    /// is not TOML, or has no `[roles]`, is an error.
    public static func parse(_ text: String, file: String) throws -> (Theme, warnings: [String]) {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ThemeError(file: file, line: error.source.begin.line, message: error.description)
        }
        var warnings: [String] = []
        func lineOf(_ key: String) -> Int? {
            for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix(key + " ") || trimmed.hasPrefix(key + "=") || trimmed.hasPrefix("\"\(key)\"") {
                    return i + 1
                }
            }
            return nil
        }
        func warn(_ key: String, _ message: String) {
            warnings.append("\(file):\(lineOf(key).map(String.init) ?? "?"): \(message)")
        }
        for key in table.keys where !["name", "description", "palette", "roles"].contains(key) {
            warn(key, "unknown key '\(key)' ignored")
        }
        var palette: [String: Color] = [:]
        if let paletteTable = table["palette"]?.table {
            for key in paletteTable.keys {
                guard let raw = paletteTable[key], let color = parseColor(raw, palette: [:]) else {
                    warn(key, "palette colour '\(key)' is not a colour (use \"#rrggbb\", 0-255, an ANSI name or \"default\")")
                    continue
                }
                palette[key] = color
            }
        }
        guard let roles = table["roles"]?.table else {
            throw ThemeError(file: file, line: nil, message: "no [roles] table")
        }
        var styles = builtInDefault.styles
        for key in roles.keys {
            guard let role = Role(rawValue: key) else {
                warn("\"\(key)\"", "unknown role '\(key)' ignored")
                continue
            }
            guard let spec = roles[key]?.table else {
                warn("\"\(key)\"", "role '\(key)' must be a table like { fg = \"blue\", bold = true }")
                continue
            }
            var style = Style()
            for attribute in spec.keys {
                let value = spec[attribute]
                switch attribute {
                case "fg", "bg":
                    guard let value, let color = parseColor(value, palette: palette) else {
                        warn("\"\(key)\"", "role '\(key)': \(attribute) is not a colour or palette name; using the default")
                        style = styles[role] ?? style
                        continue
                    }
                    if attribute == "fg" { style.foreground = color } else { style.background = color }
                case "bold": style.bold = value?.bool ?? false
                case "underline": style.underline = value?.bool ?? false
                case "reverse": style.reverse = value?.bool ?? false
                case "dim": style.dim = value?.bool ?? false
                case "italic": style.italic = value?.bool ?? false
                default: warn("\"\(key)\"", "role '\(key)': unknown attribute '\(attribute)' ignored")
                }
            }
            styles[role] = style
        }
        let name = table["name"]?.string ?? ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        return (Theme(name: name, styles: styles), warnings)
    }

    static let ansiNames: [String: UInt8] = [
        "black": 0, "red": 1, "green": 2, "yellow": 3, "blue": 4, "magenta": 5, "cyan": 6, "white": 7,
        "bright-black": 8, "grey": 8, "gray": 8, "bright-red": 9, "bright-green": 10, "bright-yellow": 11,
        "bright-blue": 12, "bright-magenta": 13, "bright-cyan": 14, "bright-white": 15,
    ]

    static func parseColor(_ value: any TOMLValueConvertible, palette: [String: Color]) -> Color? {
        if let index = value.int { return (0...255).contains(index) ? .indexed(UInt8(index)) : nil }
        guard let text = value.string?.lowercased() else { return nil }
        if text == "default" { return .terminalDefault }
        if let named = palette[text] { return named }
        if let ansi = ansiNames[text] { return .indexed(ansi) }
        if text.hasPrefix("#"), text.count == 7, let rgb = UInt32(text.dropFirst(), radix: 16) {
            return .rgb(UInt8(rgb >> 16), UInt8((rgb >> 8) & 0xFF), UInt8(rgb & 0xFF))
        }
        return nil
    }
}
