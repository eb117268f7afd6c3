import Foundation
import Testing

/// A console that dies of a fatal signal (a crash, an abort, a Swift trap) still gives the terminal back:
/// mouse reporting off, the keypad in its normal mode, the main screen, the shell's line discipline. The
/// real binary in tmux, killed by the signal from outside; tmux's own flags for the pane say what the
/// terminal was left with.
@Suite(.serialized) struct CrashInTmuxTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    static func quote(_ text: String) -> String { ConsoleInTmuxTests.quote(text) }

    /// The pane's mode flags, as tmux keeps them from what the program wrote.
    static func flags(_ tmux: Tmux) throws -> String {
        try shell(
            "tmux -L \(tmux.socket) display -p -t main 'mouse=#{mouse_any_flag} sgr=#{mouse_sgr_flag} keypad=#{keypad_flag} cursorkeys=#{keypad_cursor_flag} alternate=#{alternate_on}'"
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [("SEGV", 11), ("ABRT", 6), ("BUS", 7), ("ILL", 4)])
    func aFatalSignalLeavesNoMouseReportingOn(_ signal: (name: String, number: Int32)) throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let pidFile = home.path("console.pid"), marker = home.path("after.txt")
        // The console is the pane's process (exec), so the signal reaches it and nothing else; no core.
        let console = "echo $$ > \(pidFile); exec env \(env) \(Binary.path) --refresh 0.3"
        let command = "ulimit -c 0; sh -c \(Self.quote(console)); { echo \"EXIT=$?\"; stty -a; } > \(marker).part; mv \(marker).part \(marker); sleep 30"
        let tmux = try Tmux(width: 100, height: 30, command: command)
        try tmux.waitFor("Profile")
        // While it runs, the terminal reports the mouse (SGR) and is on the console's screen.
        let running = try Self.flags(tmux)
        #expect(running.hasPrefix("mouse=1 sgr=1") && running.hasSuffix("alternate=1"), "\(running)")
        let pid = try #require(Int32((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))

        #expect(kill(pid, signal.number) == 0)
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let after = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        // It died of that signal, as it would have without the handler
        #expect(after.hasPrefix("EXIT=\(128 + signal.number)\n"), "\(after)")
        // And the terminal is the shell's again: no mouse reporting, normal keypad, main screen, cooked
        let left = try Self.flags(tmux)
        #expect(left == "mouse=0 sgr=0 keypad=0 cursorkeys=0 alternate=0", "SIG\(signal.name) left the terminal with \(left)")
        #expect(after.contains(" icanon ") && after.contains(" echo "), "\(after)")
        let screen = try tmux.capture()
        #expect(!screen.contains("Profile"), "the console's screen is still showing:\n\(screen)")
    }
}
