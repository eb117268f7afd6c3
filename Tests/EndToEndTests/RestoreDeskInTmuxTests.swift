import Foundation
import Testing

/// The restore desk in a real terminal, with another process confirming beside it.
@Suite struct RestoreDeskInTmuxTests {
    @Test func supportConfirmsInTheConsoleWhileAnotherProcessConfirmsToo() throws {
        let home = TemporaryHome()
        #expect(try Binary.run(["check"], home: home).status == 0)
        let store = home.defaultStore
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let marker = home.path("after.txt")
        let command = "env \(env) \(Binary.path) --role support --as li.support --refresh 0.3; echo \"EXIT=$?\" > \(marker); sleep 30"
        let tmux = try ConsoleInTmuxTests.Tmux(width: 120, height: 40, command: command)
        try tmux.waitFor("Profile")
        try tmux.keys("3")
        try tmux.waitFor("Restores · open 3")

        // Another process confirms one of the prompts: the console follows.
        let other = try RestoreCommandTests.run(
            ["restore", "confirm", "2000000100000095", "--account", "10000006", "--sid", "s4", "--role-id", "r10000006-1",
             "--role", "developer", "--as", "zhao.dev"], home: home)
        #expect(other.status == 0, "\(other.stderr)")
        try tmux.waitFor("Restores · open 2")

        // Support confirms the first onto the paying account: account, Sid, Role_Id, then y.
        try tmux.keys("g", "c")
        try tmux.waitFor("Confirm: choose the account")
        try tmux.keys("Enter")
        try tmux.waitFor("Sid for 10000024 s1/r10000024-1: s1")
        try tmux.keys("Enter")
        try tmux.waitFor("Role_Id on s1: r10000024-1")
        try tmux.keys("Enter")
        try tmux.waitFor("(the paying account)? y/n")
        try tmux.literal("y")
        try tmux.keys("Enter")
        let screen = try tmux.waitFor("restored 2000000100000093 onto 10000024 s1/r10000024-1")
        #expect(screen.contains("callback   attempt 1 accepted · reply success"))
        let grants = try RestoreCommandTests.sql(
            store,
            """
            SELECT COUNT(*) FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id
            WHERE o.transaction_id IN ('2000000100000093', '2000000100000095') AND g.source = 'restore'
              AND CAST(o.order_id AS INTEGER) >= 10000000000
            """)
        #expect(grants == "2")
        let audit = try RestoreCommandTests.sql(
            store, "SELECT group_concat(actor || ' ' || role, ', ') FROM (SELECT actor, role FROM audit_log WHERE action = 'restore.confirm' AND at > 1795000000000 ORDER BY id)")
        #expect(audit == "zhao.dev developer, li.support support")

        try tmux.keys("q")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").hasPrefix("EXIT=0"))
        #expect(try Binary.run(["check"], home: home).status == 0)
    }
}
