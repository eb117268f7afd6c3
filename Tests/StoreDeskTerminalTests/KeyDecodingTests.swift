import CNcurses
import Testing
@testable import StoreDeskTerminal
@testable import StoreDeskUI

/// What curses hands over becomes the console's `Key` values; the real terminal is exercised end to
/// end in tmux by EndToEndTests.
@Suite struct KeyDecodingTests {
    @Test func controlCharactersBecomeNamedKeys() {
        #expect(CursesTerminal.characterKey(3) == .ctrl("c"))
        #expect(CursesTerminal.characterKey(9) == .tab)
        #expect(CursesTerminal.characterKey(13) == .enter)
        #expect(CursesTerminal.characterKey(10) == .enter)
        #expect(CursesTerminal.characterKey(27) == .escape)
        #expect(CursesTerminal.characterKey(127) == .backspace)
        #expect(CursesTerminal.characterKey(6) == .ctrl("f"))
    }

    @Test func wideCharactersArriveWhole() {
        #expect(CursesTerminal.characterKey(0x5F20) == .character("张"))
        #expect(CursesTerminal.characterKey(UInt32(("q" as Unicode.Scalar).value)) == .character("q"))
    }

    @Test func functionKeys() {
        #expect(CursesTerminal.functionKey(KEY_UP) == .up)
        #expect(CursesTerminal.functionKey(KEY_NPAGE) == .pageDown)
        #expect(CursesTerminal.functionKey(KEY_BTAB) == .backTab)
        #expect(CursesTerminal.functionKey(KEY_F0 + 5) == .function(5))
        #expect(CursesTerminal.functionKey(KEY_HOME) == .home)
    }

    /// An SGR mouse report's parameters, after the `ESC [ <` curses hands over as one code.
    @Test func mouseReportsBecomeClicksAndTheWheel() {
        #expect(CursesTerminal.mouseEvent("0;5;9", pressed: true) == .click(Point(x: 4, y: 8)))
        #expect(CursesTerminal.mouseEvent("0;5;9", pressed: false) == nil)
        #expect(CursesTerminal.mouseEvent("64;1;1", pressed: true) == .wheelUp(Point(x: 0, y: 0)))
        #expect(CursesTerminal.mouseEvent("65;200;60", pressed: true) == .wheelDown(Point(x: 199, y: 59)))
        #expect(CursesTerminal.mouseEvent("16;3;3", pressed: true) == .click(Point(x: 2, y: 2)))
        #expect(CursesTerminal.mouseEvent("2;3;3", pressed: true) == nil)
        #expect(CursesTerminal.mouseEvent("32;3;3", pressed: true) == nil)
        #expect(CursesTerminal.mouseEvent("0;x;3", pressed: true) == nil)
        #expect(CursesTerminal.osc52("2000000100000093") == "\u{1B}]52;c;MjAwMDAwMDEwMDAwMDA5Mw==\u{07}")
    }
}
