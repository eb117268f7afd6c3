import Foundation
import Testing

/// The restore desk in a real terminal, with another process confirming beside it.
@Suite struct RestoreDeskInTmuxTests {
    @Test func supportConfirmsInTheConsoleWhileAnotherProcessConfirmsToo() throws {
        let home = TemporaryHome()
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, "--role", "support", "--as", "li.support")
        let store = home.defaultStore
        try tmux.keys("3")
        try tmux.waitFor("of 3 ──")

        // Another process confirms one of the prompts: the console follows.
        let other = try RestoreCommandTests.run(
            ["restore", "confirm", "2000000100000095", "--account", "10000006", "--sid", "s4", "--role-id", "r10000006-1",
             "--role", "developer", "--as", "zhao.dev"], home: home)
        #expect(other.status == 0, "\(other.stderr)")
        try tmux.waitFor("of 2 ──")

        // Support confirms the first onto the paying account: account, Sid, Role_Id, then y.
        try tmux.keys("g", "c")
        try tmux.waitFor("Confirm: choose the account")
        try tmux.keys("Enter")
        try tmux.waitFor("Sid for 10000024 s1/r10000024-1: s1")
        try tmux.keys("Enter")
        try tmux.waitFor("Role_Id on s1: r10000024-1")
        try tmux.keys("Enter")
        try tmux.waitFor("(the paying account)? y/n")
        // y answers on the key.
        try tmux.literal("y")
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

        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
        #expect(try Binary.run(["check"], home: home).status == 0)
    }
}
