import Foundation
import Testing

/// Prompts in a real terminal: a decline whose first Enter was empty saves exactly what was typed next.
@Suite struct PromptsInTmuxTests {
    @Test func aDeclineAfterAnEmptyEnterSavesTheReasonExactly() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support", "--as", "li.support")
        try tmux.keys("3")
        try tmux.waitFor("of 3 ──")

        // Enter on the empty reason: the prompt stays open and says why.
        try tmux.keys("d")
        try tmux.waitFor("reason to decline 2000000100000093: ")
        try tmux.keys("Enter")
        var screen = try tmux.waitFor("✗ a decline needs a reason the player can be told")
        #expect(screen.contains("esc cancels"))
        // What is typed next goes to the prompt, whole: "r" and "d" reach no screen key.
        try tmux.literal("refunded by Apple")
        try tmux.waitFor("reason to decline 2000000100000093: refunded by Apple")
        try tmux.keys("Enter")
        // The exact reason that will be saved, then y on the key.
        screen = try tmux.waitFor("decline 2000000100000093 with the reason “refunded by Apple”? y/n")
        #expect(screen.contains("y yes · n no · esc cancels"))
        try tmux.literal("y")
        try tmux.waitFor("declined 2000000100000093: refunded by Apple")

        // `:messages` has the refusal and the outcome, with their times.
        try tmux.literal(":messages")
        try tmux.keys("Enter")
        screen = try tmux.waitFor("Messages (")
        #expect(screen.contains("a decline needs a reason the player can be told"))
        try tmux.keys("Escape")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))

        // The audit says exactly what was typed.
        let audit = try Binary.run(["audit", "--action", "restore.decline", "--json"], home: home)
        #expect(audit.status == 0, "\(audit.stderr)")
        let entries = try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [[String: Any]] ?? []
        let ours = entries.filter { ($0["subject"] as? String) == "transaction 2000000100000093" }
        #expect(ours.count == 1, "\(audit.stdout)")
        #expect(ours.first?["detail"] as? String == "refunded by Apple", "\(audit.stdout)")
        #expect(ours.first?["actor"] as? String == "li.support")
        #expect(try Binary.run(["check"], home: home).status == 0)
    }
}

extension ConsoleInTmuxTests.Tmux {
    /// The console on the demo store of `home` (built first), in a 120x40 tmux window, shown once its
    /// first screen is up; `quit` presses q and returns what the shell wrote after it exited.
    static func console(home: TemporaryHome, _ arguments: String...) throws -> ConsoleInTmuxTests.Tmux {
        try console(home: home, width: 120, height: 40, arguments: arguments)
    }

    /// The same at `width`x`height`.
    static func console(home: TemporaryHome, width: Int, height: Int, arguments: [String]) throws -> ConsoleInTmuxTests.Tmux {
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let command = "env \(env) \(Binary.path) \(arguments.joined(separator: " ")) --refresh 0.3; echo \"EXIT=$?\" > \(home.path("after.txt")).part; mv \(home.path("after.txt")).part \(home.path("after.txt")); sleep 30"
        let tmux = try ConsoleInTmuxTests.Tmux(width: width, height: height, command: command)
        try tmux.waitFor("Profile")
        return tmux
    }

    func quit(home: TemporaryHome) throws -> String {
        try keys("q")
        let marker = home.path("after.txt")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        return (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
    }
}
