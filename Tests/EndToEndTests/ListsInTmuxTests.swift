import Foundation
import Testing

/// The lists in a real terminal: position and count in every title at every size, `:sort`, and `y`
/// putting the selected id on the clipboard with OSC 52 through tmux (`set-clipboard on`).
@Suite(.serialized) struct ListsInTmuxTests {
    @Test func titlesCountSortAndCopyAtEverySize() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support")
        try shell("tmux -L \(tmux.socket) set-option -g set-clipboard on")
        let piped = home.path("pane-output")
        try shell("tmux -L \(tmux.socket) pipe-pane -t main -o \(ConsoleInTmuxTests.quote("cat >> " + piped))")

        try tmux.waitFor("Users · 1 of 40 ─")
        try tmux.keys("G")
        try tmux.waitFor("Users · 40 of 40 ─")
        try tmux.keys("k", "k")
        try tmux.waitFor("Users · 38 of 40 ─")

        // Sort: a column the store seeks on, either way; any other refused naming the sortable ones.
        try tmux.keys(":")
        try tmux.literal("sort name desc")
        try tmux.keys("Enter")
        try tmux.waitFor("Users · 1 of 40 · name ↓")
        try tmux.keys(":")
        try tmux.literal("sort type")
        try tmux.keys("Enter")
        try tmux.waitFor("cannot sort by type: the store seeks only on added, created, id, name")

        // Every list's title at 80x24, 120x40 and 200x60.
        for (width, height) in [(80, 24), (120, 40), (200, 60)] {
            try tmux.resize(width, height)
            try tmux.keys("2")
            try tmux.waitFor("Queue · 1 of 11 ─")
            try tmux.keys("3")
            try tmux.waitFor("Restores · open 1 of 3 ─")
            try tmux.keys("4")
            try tmux.waitFor("Audit · 1 of ")
            try tmux.keys("5")
            try tmux.waitFor("Subscriptions · 1 of 20 ─")
            try tmux.keys("1")
            try tmux.waitFor("Users · 1 of 40 · name ↓")
        }

        // y: the selected transaction's id on the status line, in tmux's buffer, and OSC 52 in the output.
        try tmux.keys("2", "j")
        try tmux.waitFor("Queue · 2 of 11 ─")
        try tmux.keys("y")
        let screen = try tmux.waitFor("copied ")
        let id = try #require(screen.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "copied ") else { return nil }
            return String(line[range.upperBound...].prefix { $0.isNumber })
        }.first)
        #expect(id.count == 16, "\(id)")
        #expect(screen.contains(id + " "), "the copied id is the selected row's")
        let deadline = Date().addingTimeInterval(5)
        var buffer = ""
        while Date() < deadline {
            buffer = (try? shell("tmux -L \(tmux.socket) show-buffer").output) ?? ""
            if buffer.contains(id) { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(buffer.trimmingCharacters(in: .whitespacesAndNewlines) == id)
        let output = (try? Data(contentsOf: URL(fileURLWithPath: piped))) ?? Data()
        let sequence = Data(("\u{1B}]52;c;" + Data(id.utf8).base64EncodedString() + "\u{07}").utf8)
        #expect(output.range(of: sequence) != nil, "the pane's output holds ESC ] 52 ; c ; BASE64 BEL")
        _ = try tmux.quit(home: home)
    }
}

extension ListsInTmuxTests {
    /// `:export` in the console on a seeded store of 200,000 players (`make bench`'s size; it prints
    /// the export's peak memory): one line a player plus the header, and the command line's `user export`
    /// writes the same file.
    @Test func exportOfASeededStoreWritesEveryPlayer() throws {
        let home = TemporaryHome()
        let db = home.path("seeded.sqlite")
        try SeededStores.copy(users: 200_000, seed: 7, to: db, home: home)
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let tmux = try ConsoleInTmuxTests.Tmux(
            width: 120, height: 40, command: "env \(env) \(Binary.path) --db \(db) --readonly; sleep 30")
        try tmux.waitFor("Users · 1 of 200,000 ─", timeout: 20)
        let csv = home.path("players.csv")
        try tmux.keys(":")
        try tmux.literal("export csv \(csv)")
        try tmux.keys("Enter")
        try tmux.waitFor("exported 200,000 users to", timeout: 120)
        let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n")
        #expect(lines.count == 200_001)
        #expect(lines.first == "id,name,friendly_name,account_type,age_band,phone,created_at")
        try tmux.keys(":")
        try tmux.literal("export csv \(csv)")
        try tmux.keys("Enter")
        try tmux.waitFor("exists (export! or --force writes over it)")

        let cli = home.path("cli.csv")
        let run = try Binary.run(["user", "export", cli, "--db", db], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: cli, encoding: .utf8) == String(contentsOfFile: csv, encoding: .utf8))
    }
}

extension ListsInTmuxTests {
    /// The terminal's own mouse reports (xterm SGR, as tmux passes them on) written to the pane: a click
    /// selects the row drawn there, the wheel scrolls, a click on a tab switches; `--no-mouse` asks the
    /// terminal for no reports at all.
    @Test func theMouseSelectsScrollsAndSwitchesTabs() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support")
        func flags() throws -> String {
            try shell("tmux -L \(tmux.socket) display -p -t main '#{mouse_standard_flag}#{mouse_sgr_flag}'").output
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try flags() == "11", "the console asked for button reports in SGR form")
        for (width, height) in [(80, 24), (120, 40), (200, 60)] {
            try tmux.resize(width, height)
            try tmux.keys("g")
            try tmux.waitFor("Users · 1 of 40 ─")
            // Row 5 of the list: line 9 of the terminal (header, tabs, frame, titles, then rows), 1-based.
            try tmux.literal("\u{1B}[<0;5;9M")
            try tmux.literal("\u{1B}[<0;5;9m")
            try tmux.waitFor("Users · 5 of 40 ─")
            try tmux.waitFor("id             10000005")
            try tmux.literal("\u{1B}[<65;5;9M")
            try tmux.waitFor("Users · 8 of 40 ─")
            try tmux.literal("\u{1B}[<64;5;9M")
            try tmux.waitFor("Users · 5 of 40 ─")
            // The second tab, "2 Queue", starts in column 12 (or 10 once the tabs are squeezed).
            let bar = try tmux.capture().split(separator: "\n", omittingEmptySubsequences: false)[1]
            let column = bar.distance(from: bar.startIndex, to: try #require(bar.range(of: "2 Queue")).lowerBound) + 2
            try tmux.literal("\u{1B}[<0;\(column);2M")
            try tmux.waitFor(" in queue ")
            try tmux.keys("1")
        }
        _ = try tmux.quit(home: home)

        let quiet = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support", "--no-mouse")
        let flags2 = try shell("tmux -L \(quiet.socket) display -p -t main '#{mouse_standard_flag}#{mouse_sgr_flag}'").output
        #expect(flags2.trimmingCharacters(in: .whitespacesAndNewlines) == "00", "--no-mouse leaves the mouse to the terminal")
        _ = try quiet.quit(home: home)
    }
}

extension ListsInTmuxTests {
    /// The Restores list in a real terminal: sorted by player, newest last and then reversed, its title
    /// saying so at every size; filtered, with MATCHED; exported as CSV in that order and filter, refused
    /// over the file, then over it with `:export!` as JSON; `y` copies the selected transaction.
    @Test func restoresSortFilterAndExport() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support")
        try tmux.waitFor("Users · 1 of 40 ─")
        try tmux.keys("3")
        try tmux.waitFor("Restores · open 1 of 3 ─")
        func command(_ line: String) throws {
            try tmux.keys(":")
            try tmux.literal(line)
            try tmux.keys("Enter")
        }
        try command("status all")
        try tmux.waitFor("Restores · all 1 of 5 ─")
        try command("sort player")
        try tmux.waitFor("Restores · all 1 of 5 · player ↑")
        try tmux.keys("O")
        try tmux.waitFor("Restores · all 1 of 5 · player ↓")
        try command("sort bogus")
        try tmux.waitFor("cannot sort by bogus: the store seeks only on prompted, player, transaction")

        // The title and the columns at every size, nothing cut but the cells that end in "…".
        for (width, height) in [(80, 24), (120, 40), (200, 60)] {
            try tmux.resize(width, height)
            // The frame drawn at the new size: every pane row ends on its border in the last column.
            func framed(_ screen: String) -> Bool {
                let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
                let rows = lines.filter { $0.hasPrefix("│") }
                return lines.count >= height && lines[2].hasPrefix("┌") && lines[2].hasSuffix("┐") && rows.count == height - 6
                    && rows.allSatisfy { $0.hasSuffix("│") && $0.contains("││") && $0.count <= width }
            }
            var screen = try tmux.waitFor("Restores · all 1 of 5 · player ↓")
            let deadline = Date().addingTimeInterval(10)
            while !framed(screen), Date() < deadline {
                Thread.sleep(forTimeInterval: 0.1)
                screen = try tmux.capture()
            }
            #expect(framed(screen), "\(width)x\(height):\n\(screen)")
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.contains { $0.contains("TRANSACTION") && $0.contains("PLAYER") }, "\(width)x\(height)")
        }
        try tmux.resize(120, 40)

        // The player's ids in descending order, as the store keeps them.
        let csv = home.path("prompts.csv")
        try command("export csv \(csv)")
        try tmux.waitFor("exported 5 restore prompts to")
        let rows = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\r\n")
        #expect(rows.count == 6)
        #expect(rows.first == "transaction_id,user_id,product_id,quantity,app_id,status,prompted_at,resolved_at,resolved_by,resolved_role,reason")
        let players = rows.dropFirst().map { String($0.split(separator: ",")[1]) }
        #expect(players == players.sorted(by: >), "\(players)")
        try command("export csv \(csv)")
        try tmux.waitFor("exists (export! or --force writes over it)")

        // A filter: MATCHED, the count, and an export of only what it matches.
        try tmux.keys("/")
        try tmux.literal("1000002")
        try tmux.keys("Enter")
        var screen = try tmux.waitFor("Restores · all 1 of 2 · player ↓ · “1000002”")
        #expect(screen.contains("MATCHED"))
        try command("export! json \(csv)")
        try tmux.waitFor("exported 2 restore prompts to")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: csv))) as? [[String: String]]
        #expect(json?.map { $0["user_id"] ?? "" } == ["10000029", "10000024"])

        // y: the selected prompt's transaction id.
        try tmux.keys("j", "y")
        screen = try tmux.waitFor("copied ")
        let transaction = try #require(json?.last?["transaction_id"])
        #expect(screen.contains("copied \(transaction)"))
        _ = try tmux.quit(home: home)
    }
}
