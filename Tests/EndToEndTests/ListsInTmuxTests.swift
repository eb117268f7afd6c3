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
        try tmux.waitFor("cannot sort by type: the store seeks only on created, id, name")

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
