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
}
