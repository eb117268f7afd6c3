import Foundation
import Testing

/// `:export` of a long list in the real console: the status line counts the rows as they are written, and
/// a console closed meanwhile (by `q`, SIGTERM or SIGINT) stops the export and leaves no file at all,
/// neither the target nor its hidden one beside it.
@Suite(.serialized) struct ExportInTmuxTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    static func exportFiles(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix("players.csv") || $0.hasPrefix(".players.csv") }
    }

    @Test func closingTheConsoleWhileItExportsLeavesNoFile() throws {
        let home = TemporaryHome()
        let store = home.path("big.sqlite")
        // The 200,000 players `ListsInTmuxTests` exports in full: long enough an export to close the console in.
        try SeededStores.copy(users: 200_000, seed: 7, to: store, home: home)
        let out = home.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let target = out + "/players.csv"
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data XDG_CONFIG_HOME=\(home.url.path)/config TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        for (round, how) in ["q", "TERM", "INT"].enumerated() {
            let pidFile = home.path("console-\(round).pid"), marker = home.path("after-\(round).txt")
            let console = "echo $$ > \(pidFile); exec env \(env) \(Binary.path) --db \(store) --refresh 0.3"
            let command = "sh -c \(ConsoleInTmuxTests.quote(console)); echo \"EXIT=$?\" > \(marker).part; mv \(marker).part \(marker); sleep 30"
            let tmux = try Tmux(width: 120, height: 40, command: command)
            try tmux.waitFor("Profile", timeout: 30)
            try tmux.keys(":")
            try tmux.literal("export csv \(target)")
            try tmux.keys("Enter")
            // The status line says how far it got while it runs
            let screen = try tmux.waitFor("rows to \(target)", timeout: 30)
            #expect(screen.contains("exporting users… "), "\(screen)")
            #expect(Self.exportFiles(out).count == 1 && Self.exportFiles(out)[0].hasPrefix(".players.csv.export-"), "\(Self.exportFiles(out))")
            let pid = try #require(Int32((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
            switch how {
            case "q": try tmux.keys("q")
            case "TERM": #expect(kill(pid, SIGTERM) == 0)
            default: #expect(kill(pid, SIGINT) == 0)
            }
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            let after = (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
            let status = how == "q" ? 0 : how == "TERM" ? 128 + SIGTERM : 128 + SIGINT
            #expect(after.hasPrefix("EXIT=\(status)\n"), "\(how): \(after)")
            // Nothing was left: no hidden file, and the target never half-written
            #expect(Self.exportFiles(out).isEmpty, "\(how) left \(Self.exportFiles(out))")
        }
    }
}
