import Foundation
import PostgresClusterSupport
import Testing

/// Two consoles on one team store, in real terminals: the header names the store by database and host at
/// every size, a restore confirmed in one console leaves the other's desk at once (LISTEN/NOTIFY), with no
/// key pressed there, and a server that goes away and comes back is "reconnecting…", then found again.
@Suite(.serialized) struct TeamConsoleInTmuxTests {
    static func console(_ team: TeamStoreCommandTests.TeamStore, as name: String, width: Int, height: Int) throws -> ConsoleInTmuxTests.Tmux {
        let home = team.home
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let exit = home.path(name + ".exit")
        let tmux = try ConsoleInTmuxTests.Tmux(
            width: width, height: height,
            command: "env \(env) \(Binary.path) --db \(team.url) --role support --as \(name) --refresh 0.3; echo \"EXIT=$?\" > \(exit).part; mv \(exit).part \(exit); sleep 60")
        try tmux.waitFor("Profile", timeout: 30)
        return tmux
    }

    @Test func aConfirmInOneConsoleShowsInTheOtherAndAServerGoneIsReconnecting() throws {
        let team = try TeamStoreCommandTests.TeamStore(ownCluster: true)
        let port = try #require(URLComponents(string: team.url)?.port)
        let label = "team@127.0.0.1:\(port)"
        let first = try Self.console(team, as: "li.support", width: 120, height: 40)
        let second = try Self.console(team, as: "wang.support", width: 200, height: 60)

        // The header says which store at 120 and 200 columns; at 80 it gives way to the clock and role, as a
        // file's name does.
        #expect(try first.waitFor(label).split(separator: "\n").first?.contains(label) == true)
        #expect(try second.waitFor(label).split(separator: "\n").first?.contains(label) == true)
        try first.resize(80, 24)
        let narrow = try first.waitFor("support")
        #expect(narrow.split(separator: "\n").first?.contains("support") == true, "\(narrow)")
        #expect(!narrow.contains("postgres://"))
        try first.resize(120, 40)

        for tmux in [first, second] {
            try tmux.keys("3")
            try tmux.waitFor("of 3 ──")
        }
        // li.support confirms the first prompt onto the paying account.
        try first.confirmTheFirstPromptOntoThePayingAccount()
        try first.waitFor("restored 2000000100000093 onto 10000024 s1/r10000024-1", timeout: 20)
        // The other console, untouched, follows within a moment: its desk now holds two.
        let started = Date()
        let followed = try second.waitFor("of 2 ──", timeout: 5)
        #expect(followed.contains("of 2 ──"), "after \(Date().timeIntervalSince(started)) s")
        #expect(!followed.contains("2000000100000093") || followed.contains("confirmed"), "\(followed)")

        // The server goes away under both consoles: a step that needs it says so in one line and the
        // header says "reconnecting…"; keys and frames go on. Back on its port, the consoles find it again by
        // themselves, and the desk answers as before.
        try team.cluster.restart {
            try second.keys("j")
            let down = try second.waitFor("reconnecting…", timeout: 15)
            #expect(down.split(separator: "\n").first?.contains("reconnecting…") == true, "\(down)")
            try first.keys("j")
            try first.waitFor("reconnecting…", timeout: 15)
            #expect(!down.contains("SELECT") && !down.contains("PSQL"), "\(down)")
        }
        for tmux in [first, second] {
            let deadline = Date().addingTimeInterval(20)
            var screen = try tmux.capture()
            while screen.contains("reconnecting…") && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.2)
                screen = try tmux.capture()
            }
            #expect(!screen.contains("reconnecting…"), "\(screen)")
            #expect(!screen.contains("cannot reach") && !screen.contains("shutting down"), "the outage's error outlived it:\n\(screen)")
            try tmux.keys("k")
            try tmux.waitFor("of 2 ──")
        }

        let audit = try team.cluster.psql(
            "SELECT actor || ' ' || role FROM audit_log WHERE action = 'restore.confirm' ORDER BY id DESC LIMIT 1", database: team.database)
        #expect(audit.trimmingCharacters(in: .whitespacesAndNewlines) == "li.support support")
        #expect(try Binary.run(["check", "--db", team.url], home: team.home).status == 0)
        for (tmux, name) in [(first, "li.support"), (second, "wang.support")] {
            #expect(try ConcurrentWritersTests.quit(tmux, home: team.home, marker: team.home.path(name + ".exit")).hasPrefix("EXIT=0"), "\(name)")
        }
    }
}
