import Foundation
import Testing

/// The real binary in a real terminal: tmux with TERM=tmux-256color and a UTF-8 locale.
@Suite(.serialized) struct ConsoleInTmuxTests {
    /// A tmux server of the test's own, with one window running a shell command.
    final class Tmux {
        let socket = "storedesk-e2e-\(UUID().uuidString.prefix(8))"

        init(width: Int, height: Int, command: String) throws {
            let result = try shell("tmux -L \(socket) -f /dev/null new-session -d -x \(width) -y \(height) -s main \(quote(command)) </dev/null >/dev/null 2>&1")
            guard result.status == 0 else { throw Failure(message: "tmux did not start: \(result.output)") }
            try shell("tmux -L \(socket) set-option -g window-size manual </dev/null >/dev/null 2>&1")
        }

        deinit { _ = try? shell("tmux -L \(socket) kill-server") }

        func keys(_ keys: String...) throws { try shell("tmux -L \(socket) send-keys -t main \(keys.joined(separator: " "))") }
        func literal(_ text: String) throws { try shell("tmux -L \(socket) send-keys -t main -l \(quote(text))") }
        func capture(colours: Bool = false) throws -> String {
            try shell("tmux -L \(socket) capture-pane -p \(colours ? "-e" : "") -t main").output
        }
        func resize(_ width: Int, _ height: Int) throws { try shell("tmux -L \(socket) resize-window -t main -x \(width) -y \(height)") }

        /// Waits until the screen contains `text` (the console is live, so give it a moment), and returns a
        /// screen captured after that one: a capture can land while a frame is half written (its top rows
        /// new, the rest the frame before), so the frame that drew `text` is read once it has been flushed.
        @discardableResult
        func waitFor(_ text: String, timeout: TimeInterval = 10, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let deadline = Date().addingTimeInterval(timeout)
            var screen = ""
            while Date() < deadline {
                screen = try capture()
                if screen.contains(text) {
                    Thread.sleep(forTimeInterval: 0.05)
                    let settled = try capture()
                    if settled.contains(text) { return settled }
                    screen = settled
                    continue
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            Issue.record("timed out waiting for “\(text)”; screen was:\n\(screen)", sourceLocation: sourceLocation)
            return screen
        }
    }

    struct Failure: Error { var message: String }

    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test func driveTheConsoleLikeAPerson() throws {
        let home = TemporaryHome()
        // Build the default store first so the console starts on it.
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let marker = home.path("after.txt")
        let command = "env \(env) \(Binary.path) --role support --refresh 0.3; { echo \"EXIT=$?\"; stty -a; } > \(marker).part; mv \(marker).part \(marker); sleep 30"
        let tmux = try Tmux(width: 120, height: 40, command: command)

        var screen = try tmux.waitFor("Profile")
        #expect(screen.contains("StoreDesk"))
        #expect(screen.contains("support · e2e"))
        #expect(screen.contains("张伟"))
        // One clock: the demo store's, running on from it, as `subs` and `snapshot` answer.
        #expect(screen.contains("store clock 2026-11-20 08:0"), "\(screen)")
        // Every row keeps its border in the last column: 婷妈👩‍👧‍👦 is drawn as 👩👧👦, no joiner is
        // left to swallow the next column.
        let rows = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(screen.contains("婷妈👩👧👦") && !screen.unicodeScalars.contains("\u{200D}"))
        for row in rows[3..<37] { #expect(row.hasSuffix("│"), "\(row)") }

        // Move down twice: the profile follows the selection.
        try tmux.keys("j", "j")
        screen = try tmux.waitFor("id             10000003")

        // Filter by a Chinese name.
        try tmux.keys("/")
        try tmux.literal("王芳")
        screen = try tmux.waitFor("filter “王芳”")
        #expect(screen.contains("10000002"))
        #expect(!screen.contains("10000001  "))
        try tmux.keys("Enter")
        try tmux.keys("/", "Escape")
        try tmux.waitFor("Users · 1 of 40 ─")

        // Help lists every action; esc closes it.
        try tmux.keys("?")
        screen = try tmux.waitFor("Help: Users")
        #expect(screen.contains("Quit (Ctrl-C always quits)."))
        try tmux.keys("Escape")

        // Too small, then back.
        try tmux.resize(40, 10)
        screen = try tmux.waitFor("terminal too small")
        #expect(screen.replacingOccurrences(of: "\n", with: " ").contains("need 60x15, have 40x10"))
        try tmux.resize(120, 40)
        screen = try tmux.waitFor("Profile")
        #expect(screen.contains("StoreDesk"))

        // Another process writes to the store: the change shows up on screen.
        let write = try shell("sqlite3 \(home.defaultStore) \"UPDATE user SET friendly_name = '外部修改' WHERE id = '10000001'\"")
        #expect(write.status == 0, "\(write.output)")
        try tmux.waitFor("外部修改")

        // The support role reveals a phone number; it is audited.
        try tmux.keys("g", "p")
        try tmux.waitFor("reveal the phone of 10000001")
        try tmux.literal("ticket 8812")
        try tmux.keys("Enter")
        try tmux.waitFor("13800000000")
        let audit = try shell("sqlite3 \(home.defaultStore) \"SELECT actor || ' ' || role || ' ' || action FROM audit_log WHERE subject = 'user 10000001' ORDER BY id DESC LIMIT 1\"").output
        #expect(audit == "e2e support reveal.phone\n")

        // Colours reach the terminal.
        #expect(try tmux.capture(colours: true).contains("\u{1B}["))

        try tmux.keys("q")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let after = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
        #expect(after.hasPrefix("EXIT=0\n"), "\(after)")
        // Curses gave the terminal back: canonical mode and echo are on again.
        #expect(after.contains(" icanon ") && after.contains(" echo "), "\(after)")
        screen = try tmux.capture()
        #expect(!screen.contains("Profile"), "the console's screen is still showing")
    }

    /// The instant a console's header shows (`store clock 2026-11-20 08:00:07`), in UTC.
    static func headerClock(_ screen: String) -> Date? {
        guard let match = screen.firstMatch(of: /store clock (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/) else { return nil }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return format.date(from: String(match.1))
    }

    /// A console opened while another is open on the same store shows the other's clock,
    /// not the last write's instant, and a command run meanwhile answers there too.
    @Test func aSecondConsoleShowsTheFirstOnesClock() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let command = "env \(env) \(Binary.path) --role support --refresh 0.3; sleep 30"
        let first = try Tmux(width: 120, height: 40, command: command)
        let opened = try #require(Self.headerClock(try first.waitFor("Profile")))
        // Wait (bounded) until the first console's clock has run 7 s past where it opened.
        var firstNow = opened
        let deadline = Date().addingTimeInterval(15)
        while firstNow.timeIntervalSince(opened) < 7, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.25)
            firstNow = Self.headerClock(try first.capture()) ?? firstNow
        }
        #expect(firstNow.timeIntervalSince(opened) >= 7)
        let second = try Tmux(width: 120, height: 40, command: command)
        _ = try second.waitFor("Profile")
        let (a, b) = (try first.capture(), try second.capture())
        let (shownFirst, shownSecond) = (try #require(Self.headerClock(a)), try #require(Self.headerClock(b)))
        // Each header ticks once a second on its own: one second apart at most, never the 7 s of a start at the last write.
        #expect(abs(shownFirst.timeIntervalSince(shownSecond)) <= 1, "first:\n\(a)\nsecond:\n\(b)")
        #expect(shownSecond.timeIntervalSince(opened) >= 6, "\(b)")
        // A command meanwhile answers at the consoles' clock, not where the first opened.
        let audit = try Binary.run(["restore", "decline", "2000000100000095", "--reason", "not on this Apple ID", "--role", "support", "--as", "mia"], home: home)
        #expect(audit.status == 0, "\(audit.stderr)")
        let entry = try Binary.run(["audit", "--limit", "1", "--json"], home: home)
        let at = ((try JSONSerialization.jsonObject(with: Data(entry.stdout.utf8)) as? [[String: Any]])?.first?["at"] as? String) ?? ""
        let stamped = try #require(ISO8601DateFormatter().date(from: at), "\(entry.stdout)")
        #expect(stamped.timeIntervalSince(opened) >= 5, "\(at)")
        try first.keys("q")
        try second.keys("q")
    }

    @Test func aDeveloperRunsThePaymentQueueLive() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let marker = home.path("after.txt")
        let command = "env \(env) \(Binary.path) --role developer --refresh 0.3; echo \"EXIT=$?\" > \(marker).part; mv \(marker).part \(marker); sleep 30"
        let tmux = try Tmux(width: 120, height: 40, command: command)
        try tmux.waitFor("Profile")
        try tmux.keys("2")
        try tmux.waitFor("no simulation in this console (r starts one)")
        try tmux.keys("r")
        try tmux.waitFor("simulation ▶ 1×")
        try tmux.keys("+", "+", "+", "+")
        try tmux.waitFor("simulation ▶ 20×")
        try tmux.keys("x")
        try tmux.literal("serverDown:30")
        try tmux.keys("Enter")
        try tmux.waitFor("faults serverDown:")
        // Purchases flow: the store fills with simulated events, and the header counts them.
        let events = { (kind: String) throws -> Int in
            let sql = "SELECT COUNT(*) FROM transaction_event WHERE transaction_id LIKE 'live%' AND kind LIKE '\(kind)'"
            return Int(try shell("sqlite3 \(home.defaultStore) \"\(sql)\"").output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
        let deadline = Date().addingTimeInterval(15)
        while try (events("%") < 20 || events("server_down") == 0) && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(try events("%") >= 20)
        #expect(try events("server_down") > 0, "callbacks meet the game server down")
        try tmux.keys("Space")
        try tmux.waitFor("simulation ⏸ 20×")
        let paused = try events("%")
        Thread.sleep(forTimeInterval: 0.6)
        #expect(try events("%") == paused, "a paused clock writes nothing")
        try tmux.keys("q")
        let end = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker) && Date() < end { Thread.sleep(forTimeInterval: 0.1) }
        #expect(((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").hasPrefix("EXIT=0"))
        let check = try Binary.run(["check"], home: home)
        #expect(check.status == 0, "\(check.stdout)")
    }

    @Test func ctrlCAndSigtermRestoreTheTerminalToo() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
        for (name, stop, code) in [("ctrl-c", "C-c", "0"), ("sigterm", "TERM", "143"), ("sighup", "HUP", "129")] {
            let marker = home.path("\(name).txt")
            let pidFile = home.path("\(name).pid")
            let command = "env \(env) sh -c 'echo $$ > \(pidFile); exec \(Binary.path) --readonly'; { echo \"EXIT=$?\"; stty -a; } > \(marker).part; mv \(marker).part \(marker); sleep 30"
            let tmux = try Tmux(width: 100, height: 30, command: command)
            let screen = try tmux.waitFor("Profile")
            #expect(screen.contains(" RO"))
            if stop == "TERM" || stop == "HUP" {
                let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                try shell("kill -\(stop) \(pid)")
            } else {
                try tmux.keys(stop)
            }
            let deadline = Date().addingTimeInterval(10)
            while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            let after = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
            #expect(after.hasPrefix("EXIT=\(code)\n"), "\(name): \(after)")
            #expect(after.contains(" icanon ") && after.contains(" echo "), "\(name): \(after)")
        }
    }
}
