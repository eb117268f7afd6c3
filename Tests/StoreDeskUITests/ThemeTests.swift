import Foundation
import Testing
@testable import StoreDeskUI

@Suite struct ThemeTests {
    static let themesFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Themes")

    static var files: [URL] {
        ((try? FileManager.default.contentsOfDirectory(atPath: themesFolder.path)) ?? [])
            .filter { $0.hasSuffix(".toml") }.sorted().map { themesFolder.appendingPathComponent($0) }
    }

    @Test func everyFileInThemesLoadsCleanlyAndNamesEveryRole() throws {
        #expect(Self.files.count >= 4)
        for url in Self.files {
            let text = try String(contentsOf: url, encoding: .utf8)
            let (theme, warnings) = try Theme.parse(text, file: url.lastPathComponent)
            #expect(warnings.isEmpty, "\(url.lastPathComponent): \(warnings)")
            let table = text.components(separatedBy: "[roles]").last ?? ""
            for role in Role.allCases {
                #expect(table.contains("\"\(role.rawValue)\""), "\(url.lastPathComponent) leaves out \(role.rawValue)")
            }
            // The selection always stands out from plain text.
            #expect(theme.style(.listSelected) != theme.style(.text))
        }
    }

    @Test func theBuiltInDefaultIsDarkToml() throws {
        let url = Self.themesFolder.appendingPathComponent("dark.toml")
        let (dark, _) = try Theme.parse(try String(contentsOf: url, encoding: .utf8), file: "dark.toml")
        for role in Role.allCases {
            #expect(dark.style(role) == Theme.builtInDefault.style(role), "\(role.rawValue) differs from dark.toml")
        }
    }

    @Test func everyShippedThemeIsEmbeddedInTheBinary() {
        let catalog = ThemeCatalog(environment: [:])
        for url in Self.files {
            #expect(catalog.files[url.deletingPathExtension().lastPathComponent] != nil, "\(url.lastPathComponent) is not in Package.swift's resources")
        }
        #expect(catalog.names.contains("mono"))
    }

    @Test func anUnknownKeyWarnsAndAMissingRoleFallsBack() throws {
        let text = """
            name = "partial"
            colour = "oops"
            [palette]
            blue = "#0000ff"
            [roles]
            "text" = { fg = "blue" }
            "no.such.role" = { fg = "red" }
            "muted" = { fg = "not-a-colour" }
            """
        let (theme, warnings) = try Theme.parse(text, file: "partial.toml")
        #expect(theme.style(.text).foreground == .rgb(0, 0, 255))
        #expect(theme.style(.listSelected) == Theme.builtInDefault.style(.listSelected))
        #expect(theme.style(.muted) == Theme.builtInDefault.style(.muted))
        #expect(warnings.count == 3)
        #expect(warnings.contains { $0.hasPrefix("partial.toml:2:") && $0.contains("unknown key 'colour'") })
        #expect(warnings.contains { $0.hasPrefix("partial.toml:7:") && $0.contains("unknown role 'no.such.role'") })
    }

    @Test func aFileThatDoesNotParseIsAnErrorWithFileAndLine() {
        let text = "name = \"broken\"\n[roles]\n\"text\" = { fg = \"blue\"\n"
        do {
            _ = try Theme.parse(text, file: "broken.toml")
            Issue.record("a broken theme parsed")
        } catch let error as ThemeError {
            #expect(error.file == "broken.toml")
            #expect(error.line == 3 || error.line == 4)
            #expect(error.description.hasPrefix("broken.toml:"))
            #expect(!error.description.contains("\n"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func monoKeepsSelectionVisibleWithoutColour() {
        let mono = Theme.mono
        for role in Role.allCases {
            #expect(mono.style(role).foreground == .terminalDefault)
            #expect(mono.style(role).background == .terminalDefault)
        }
        #expect(mono.style(.listSelected).reverse)
        #expect(mono.style(.listSelected).bold)
        #expect(mono.style(.tabActive).underline)
    }

    @Test func coloursDegradeFromTruecolorTo256To8() {
        let blue = Color.rgb(0x61, 0xAF, 0xEF)
        #expect(blue.degraded(to: .trueColor) == blue)
        guard case .indexed(let i) = blue.degraded(to: .indexed256) else { Issue.record("not indexed"); return }
        #expect(i >= 16)
        #expect(blue.degraded(to: .ansi8) == .indexed(6) || blue.degraded(to: .ansi8) == .indexed(4))
        #expect(Color.rgb(255, 0, 0).degraded(to: .ansi8) == .red)
        #expect(Color.rgb(10, 10, 10).degraded(to: .ansi8) == .black)
        #expect(Color.indexed(9).degraded(to: .ansi8) == .red)
        #expect(Color.rgb(128, 128, 128).degraded(to: .indexed256) == .indexed(244))
        #expect(Color.terminalDefault.degraded(to: .ansi8) == .terminalDefault)
    }
}

@Suite struct LayoutTests {
    @Test func paneArrangementAt80x24() {
        let boxes = Layout(size: Size(width: 80, height: 24)).asciiBoxes.split(separator: "\n")
        #expect(boxes[0] == Substring(String(repeating: "H", count: 80)))
        #expect(boxes[1] == Substring(String(repeating: "T", count: 80)))
        #expect(boxes[2] == Substring(String(repeating: "L", count: 40) + String(repeating: "D", count: 40)))
        #expect(boxes[21] == boxes[2])
        #expect(boxes[22] == Substring(String(repeating: "F", count: 80)))
        #expect(boxes[23] == Substring(String(repeating: "S", count: 80)))
    }

    @Test func theListWidensOnWideTerminals() {
        // Half each up to 160 columns; wider, the detail pane keeps 80 (or two fifths) and the list the rest.
        #expect(Layout(size: Size(width: 160, height: 50))[.list].width == 80)
        #expect(Layout(size: Size(width: 300, height: 50))[.detail].width == 120)
        let layout = Layout(size: Size(width: 200, height: 50))
        #expect(layout[.list].width == 120)
        #expect(layout[.detail].width == 80)
        #expect(Layout(size: Size(width: 60, height: 20))[.list].width == 30)
        #expect(layout.listRows == 50 - 4 - 3)
    }

    @Test func belowTheMinimumThereAreNoPanes() {
        #expect(Layout(size: Size(width: 59, height: 40)).isTooSmall)
        #expect(Layout(size: Size(width: 120, height: 14)).isTooSmall)
        #expect(!Layout(size: Size(width: 60, height: 15)).isTooSmall)
    }
}

@Suite struct TextWidthTests {
    @Test func cjkAndEmojiTakeTwoColumns() {
        #expect("abc".columns == 3)
        #expect("张伟".columns == 4)
        #expect("小龙🐉".columns == 6)
        #expect("Zoë".columns == 3)
        #expect("e\u{301}".columns == 1)
        #expect("한국".columns == 4)
    }

    /// A cluster is drawn in cells every terminal draws alike, and measured as those cells: tmux joins a
    /// ZWJ sequence into two columns but xterm draws all its emoji, and curses cannot put two emoji in one
    /// cell at all (it kept 👩 and a dangling joiner, which swallowed the next column on screen).
    @Test func everyKindOfClusterMeasuresAsTheCellsItIsDrawnIn() {
        func cells(_ text: Character) -> [String] { TextWidth.cells(of: text).map(\.text) }
        #expect(cells("👩‍👧‍👦") == ["👩", "👧", "👦"])
        #expect("婷妈👩‍👧‍👦".columns == 10)
        #expect(cells("👨‍👩‍👧‍👦") == ["👨", "👩", "👧", "👦"])
        #expect(cells("👩🏽‍💻") == ["👩", "💻"])
        #expect(cells("🏳️‍🌈") == ["🏳", "🌈"] && "🏳️‍🌈".columns == 3)
        #expect(cells("🇨🇳") == ["🇨", "🇳"] && "🇨🇳".columns == 2)
        #expect(cells("👍🏽") == ["👍"] && "👍🏽".columns == 2)
        #expect(cells("🏽") == ["🏽"] && "🏽".columns == 2)
        #expect(cells("❤️") == ["❤"] && "❤️".columns == 1)
        #expect(cells("1️⃣") == ["1\u{20E3}"] && "1️⃣".columns == 1)
        #expect(cells("e\u{301}") == ["e\u{301}"])
        #expect(cells("ก่") == ["ก่"] && "ก่".columns == 1)
        #expect(cells("\u{200D}").isEmpty && "a\u{200B}b".columns == 2)
    }

    @Test func noCellEverHoldsAJoinerOrTwoSpacingCharacters() {
        var canvas = Canvas(size: Size(width: 60, height: 1))
        let written = canvas.write("婷妈👩‍👧‍👦 🇨🇳 👍🏽 Zoe\u{301} ❤️ 1️⃣ 🏳️‍🌈 👨‍👩‍👧‍👦 x", at: Point(x: 0, y: 0), role: .text)
        #expect(written == "婷妈👩‍👧‍👦 🇨🇳 👍🏽 Zoe\u{301} ❤️ 1️⃣ 🏳️‍🌈 👨‍👩‍👧‍👦 x".columns)
        for x in 0..<60 {
            let scalars = canvas[x, 0].character.unicodeScalars
            #expect(!scalars.contains { [0x200D, 0xFE0F].contains($0.value) }, "cell \(x)")
            #expect(scalars.filter { TextWidth.columns(of: $0) > 0 }.count <= 1, "cell \(x): \(canvas[x, 0].character)")
        }
        #expect(canvas.plainText == "婷妈👩👧👦 🇨🇳 👍 Zoe\u{301} ❤ 1\u{20E3} 🏳🌈 👨👩👧👦 x\n")
    }

    @Test func textIsCutAndPaddedByColumns() {
        #expect("张伟🐉abc".fitted(to: 5) == "张伟…")
        #expect("张伟".padded(to: 6) == "张伟  ")
        #expect("星海征途".padded(to: 5) == "星海…")
        #expect("星海征途".padded(to: 6) == "星海… ")
        #expect("42".leftPadded(to: 5) == "   42")
    }

    @Test func theCanvasKeepsWideCharactersWhole() {
        var canvas = Canvas(size: Size(width: 6, height: 1))
        canvas.write("张伟龙", at: Point(x: 0, y: 0), role: .text)
        #expect(canvas.plainText == "张伟龙\n")
        canvas.write("x", at: Point(x: 1, y: 0), role: .text)
        #expect(canvas.plainText == " x伟龙\n")
        canvas.write("张伟龙", at: Point(x: 1, y: 0), role: .text)
        #expect(canvas.plainText == " 张伟\n")
    }
}

@Suite struct KeymapDocumentationTests {
    /// The console guide's key list is the keymap itself: regenerate it with `storedesk keys` when this fails.
    @Test func theConsoleGuideListsEveryBindingAsTheKeymapDoes() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/console.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        #expect(text.contains(Keymap.markdownTable))
    }

    @Test func everyFooterHintIsABinding() {
        let footer = Keymap.footer(for: .users)
        #expect(footer.count == 9)
        #expect(footer.first?.command == .down)
        #expect(footer.last?.command == .quit)
    }

    /// A screen that names no footer shows every key it has (`h` worked on Find, and its
    /// footer, an empty list by default, never said so).
    @Test func aScreenWithoutAFooterListShowsEveryKeyItHas() {
        let find = Keymap.footer(for: .find).map(\.help)
        #expect(find.contains("history"))
        #expect(find.firstIndex(of: "history") ?? 0 < find.firstIndex(of: "command") ?? 0)
        let audit = Keymap.footer(for: .audit).map(\.help)
        #expect(audit.contains("reverse"))
    }
}

/// `--ascii` and a locale that is not UTF-8: no symbol reaches the terminal, only its
/// ASCII stand-in; names in any script are left as they are.
@Suite struct ASCIISymbolTests {
    @Test func everySymbolOfTheFrameBecomesASCIIAndNamesStay() throws {
        for size in [Size(width: 80, height: 24), Size(width: 120, height: 40)] {
            let console = try ConsoleHarness(size: size) { $0.glyphs = .ascii }
            for screen in ["subscriptions", "restores", "users"] {
                console.show(screen)
                let text = console.text
                let symbols = text.unicodeScalars.filter { !$0.isASCII && Canvas.asciiSymbol($0) != nil }
                #expect(symbols.isEmpty, "\(screen) \(size): \(String(String.UnicodeScalarView(symbols)))")
                if screen == "subscriptions" { #expect(text.contains("* active") && text.contains("+-"), "\(text)") }
                if screen == "users" { #expect(text.contains("张伟"), "\(text)") }
            }
            // Drawn with Unicode, the same frame has them.
            let unicode = try ConsoleHarness(size: size)
            unicode.show("subscriptions")
            #expect(unicode.text.contains("● active") && unicode.text.contains("┌─"))
        }
    }
}
