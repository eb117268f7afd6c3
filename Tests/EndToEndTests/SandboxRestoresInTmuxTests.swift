import Foundation
import Testing

/// A simulation's dropped orders on the restore desk, in a real terminal at three sizes: they are Sandbox,
/// the title counts them, and `b` hides them (and shows them again) without losing the real prompts.
@Suite struct SandboxRestoresInTmuxTests {
    @Test func supportHidesASimulationsSandboxPromptsAndTheTitleCountsThem() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let simulated = try RestoreCommandTests.run(
            ["simulate", "--seconds", "20", "--rate", "2", "--seed", "3", "--fault", "clientCrash:1", "--as", "wang.dev"], home: home)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let store = home.defaultStore
        // The players whose client crashed after paying log in: their dropped orders become prompts.
        let players = try RestoreCommandTests.sql(
            store,
            """
            SELECT DISTINCT t.user_id FROM store_transaction t JOIN transaction_event e ON e.transaction_id = t.id
            WHERE e.kind = 'client_crashed' AND t.id LIKE 'sim%' ORDER BY t.user_id
            """
        ).split(separator: "\n").map(String.init)
        #expect(!players.isEmpty)
        for player in players {
            #expect(try RestoreCommandTests.run(["login", "as", player, "--role", "support"], home: home).status == 0)
        }
        let sandbox = try RestoreCommandTests.sql(
            store,
            """
            SELECT COUNT(*) FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
            WHERE r.status = 'open' AND t.environment = 'Sandbox'
            """)
        #expect(Int(sandbox) ?? 0 > 0)
        #expect(try RestoreCommandTests.sql(store, "SELECT COUNT(*) FROM store_transaction WHERE id LIKE 'sim%' AND environment != 'Sandbox'") == "0")
        let production = try RestoreCommandTests.sql(
            store,
            """
            SELECT COUNT(*) FROM restore_request r JOIN store_transaction t ON t.id = r.transaction_id
            WHERE r.status = 'open' AND t.environment = 'Production'
            """)
        let total = (Int(production) ?? 0) + (Int(sandbox) ?? 0)

        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, width: 80, height: 24, arguments: ["--role", "support"])
        try tmux.keys("3")
        // 80 columns: the list's frame is 40 wide, so the count takes its short form, and shows whole.
        var screen = try tmux.waitFor("Restores · open 1 of \(total) · \(sandbox) sbx ─")
        #expect(screen.contains("sim1-T"))
        try tmux.keys("b")
        screen = try tmux.waitFor("Restores · open 1 of \(production) · −\(sandbox) sbx ─")
        #expect(screen.contains("2000000100000093") && !screen.contains("sim1-T"))
        #expect(screen.contains("Sandbox restore prompts hidden (b shows them)"))
        try tmux.resize(120, 40)
        screen = try tmux.waitFor("Restores · open 1 of \(production) · \(sandbox) sandbox hidden ─")
        #expect(screen.contains("b sandbox"), "the footer offers b:\n\(screen)")
        try tmux.resize(200, 60)
        screen = try tmux.waitFor("Restores · open 1 of \(production) · \(sandbox) sandbox hidden ─")
        try tmux.keys("b")
        screen = try tmux.waitFor("Restores · open 1 of \(total) · \(sandbox) sandbox ─")
        #expect(screen.contains("sim1-T"))
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))

        // The run is on the audit log under who ran it, and `restore list` leaves the Sandbox prompts out when asked.
        #expect(try RestoreCommandTests.sql(store, "SELECT group_concat(action || ' ' || actor, ', ') FROM audit_log WHERE action LIKE 'simulate.%'")
            == "simulate.start wang.dev, simulate.fault wang.dev, simulate.stop wang.dev")
        let listed = try RestoreCommandTests.run(["restore", "list", "--environment", "production", "--json"], home: home)
        #expect(listed.status == 0 && !listed.stdout.contains("\"Sandbox\"") && listed.stdout.contains("\"environment\" : \"Production\""), "\(listed.stdout)")
    }
}
