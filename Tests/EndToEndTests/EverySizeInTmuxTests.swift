import Foundation
import Testing

/// Every screen at every size a person uses, in a real terminal: what tmux shows is exactly the frame
/// `storedesk snapshot` renders for that screen and size (no stray cells from an earlier frame), the
/// current tab is named in the tab bar, and the footer keeps `? help`.
@Suite(.serialized) struct EverySizeInTmuxTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    static let screens = ["users", "queue", "restores", "audit", "subscriptions", "codes", "login", "onetap"]
    static let titles = ["Users", "Queue", "Restores", "Audit", "Subscriptions", "Codes", "Login", "One-tap"]
    /// The short titles the tab bar shows at 80 columns (`ConsoleScreen.shortTitle`).
    static let shortTitles = ["Restores": "Restore", "Subscriptions": "Subs", "One-tap": "1-tap"]

    /// Two frames match when they differ at most in the value of a digit: the console's clock runs on
    /// while the snapshot starts from the store's, so a second in the header or an age may have ticked.
    static func sameFrame(_ a: String, _ b: String) -> Bool {
        let left = a.split(separator: "\n", omittingEmptySubsequences: false)
        let right = b.split(separator: "\n", omittingEmptySubsequences: false)
        let count = max(left.count, right.count)
        for i in 0..<count {
            let l = i < left.count ? Array(left[i]) : [], r = i < right.count ? Array(right[i]) : []
            guard l.count == r.count else { return false }
            for (x, y) in zip(l, r) where x != y && !(x.isASCII && x.isNumber && y.isASCII && y.isNumber) { return false }
        }
        return true
    }

    /// What tmux shows once it matches `frame`, or after 10 s whatever it shows then.
    static func settled(_ tmux: Tmux, like frame: String) throws -> String {
        var capture = ""
        let deadline = Date().addingTimeInterval(10)
        repeat {
            capture = try tmux.capture()
            if sameFrame(capture, frame) { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        return capture
    }

    @Test func sameFrameToleratesOnlyDigits() {
        #expect(Self.sameFrame("age 20s\n│ x", "age 23s\n│ x"))
        #expect(!Self.sameFrame("age 20s\n│ x", "age 20s\n│ y"))
        #expect(!Self.sameFrame("age 20s", "age 20s │"))
    }

    @Test(arguments: [(60, 20), (80, 24), (120, 40), (200, 60)])
    func everyScreenMatchesItsSnapshot(width: Int, height: Int) throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let store = home.defaultStore
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let command = "env \(env) \(Binary.path) --db \(store) --role support --as e2e; sleep 30"
        let tmux = try Tmux(width: width, height: height, command: command)
        try tmux.waitFor("Profile")
        for (index, (screen, title)) in zip(Self.screens, Self.titles).enumerated() {
            try tmux.keys("\(index + 1)")
            let snapshot = try Binary.run(
                ["snapshot", "--db", store, "--role", "support", "--as", "e2e", "--screen", screen, "--size", "\(width)x\(height)"],
                home: home)
            #expect(snapshot.status == 0, "\(screen) \(width)x\(height): \(snapshot.stderr)")
            // The console draws the screen's first page after its read: wait for it to settle.
            let capture = try Self.settled(tmux, like: snapshot.stdout)
            #expect(Self.sameFrame(capture, snapshot.stdout), "\(screen) at \(width)x\(height)\ntmux:\n\(capture)\nsnapshot:\n\(snapshot.stdout)")
            let rows = capture.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(rows.count >= height)
            // The current tab named at every size (whole but at 80 columns, where every tab goes by its
            // short title so that all ten keep a name); and the way to every other key.
            let shown = width == 80 ? (Self.shortTitles[title] ?? title) : title
            #expect(rows[1].contains("\(index + 1) \(shown)"), "\(screen) at \(width)x\(height): \(rows[1])")
            if width == 80 { #expect(rows[1].contains("1 Users 2 Queue") && rows[1].contains("8 1-tap 9 Find 10 Cons"), "\(rows[1])") }
            #expect(rows[height - 2].contains("? help"), "\(screen) at \(width)x\(height): \(rows[height - 2])")
            // No row longer than the terminal.
            for row in rows.prefix(height) { #expect(row.count <= width) }
        }
        try tmux.keys("q")
    }

    /// `?` over every screen: the overlay clears its whole area (every row between the tab bar and the
    /// footer is the overlay's, border to border, nothing of the pane behind), and `esc` gives back
    /// exactly the frame `snapshot` renders, with no stray cells.
    @Test(arguments: [(80, 24), (200, 60)])
    func helpOverEveryScreen(width: Int, height: Int) throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let store = home.defaultStore
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let tmux = try Tmux(width: width, height: height, command: "env \(env) \(Binary.path) --db \(store) --role support --as e2e; sleep 30")
        try tmux.waitFor("Profile")
        for (index, (screen, title)) in zip(Self.screens, Self.titles).enumerated() {
            try tmux.keys("\(index + 1)")
            try tmux.keys("?")
            let capture = try tmux.waitFor("Help: \(title)")
            let rows = capture.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(rows[2].hasPrefix("┌") && rows[2].hasSuffix("┐"), "\(screen) \(width)x\(height): \(rows[2])")
            #expect(rows[height - 3].hasPrefix("└") && rows[height - 3].hasSuffix("┘"), "\(screen): \(rows[height - 3])")
            for row in rows[3..<(height - 3)] {
                #expect(row.hasPrefix("│") && row.hasSuffix("│") && !row.dropFirst().dropLast().contains("│"),
                    "\(screen) at \(width)x\(height): a row of the pane behind shows through: \(row)")
            }
            #expect(rows[height - 2].contains("? help"))
            try tmux.keys("Escape")
            let snapshot = try Binary.run(
                ["snapshot", "--db", store, "--role", "support", "--as", "e2e", "--screen", screen, "--size", "\(width)x\(height)"],
                home: home)
            let after = try Self.settled(tmux, like: snapshot.stdout)
            #expect(Self.sameFrame(after, snapshot.stdout), "\(screen) after help at \(width)x\(height)\ntmux:\n\(after)\nsnapshot:\n\(snapshot.stdout)")
        }
        try tmux.keys("q")
    }

    @Test func aSnapshotTooSmallForTheConsoleFailsInOneLine() throws {
        let home = TemporaryHome()
        for size in ["120x12", "40x10", "59x30"] {
            let result = try Binary.run(["snapshot", "--size", size], home: home)
            #expect(result.status == 1, "\(size)")
            #expect(result.stdout.isEmpty, "\(size)")
            #expect(result.stderr == "storedesk: --size \(size) is too small: the console needs at least 60x15\n")
        }
        #expect(try Binary.run(["snapshot", "--size", "60x15"], home: home).status == 0)
    }
}
