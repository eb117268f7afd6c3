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
        try tmux.confirmTheFirstPromptOntoThePayingAccount()
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

extension ConsoleInTmuxTests.Tmux {
    /// On the restore desk of the demo store: confirms the first prompt (2000000100000093) onto the paying
    /// account 10000024 s1/r10000024-1, taking every suggestion with Enter, then `y` on the key.
    func confirmTheFirstPromptOntoThePayingAccount() throws {
        try keys("g", "c")
        try waitFor("Confirm: choose the account")
        try keys("Enter")
        try waitFor("Sid for 10000024 s1/r10000024-1: s1")
        try keys("Enter")
        try waitFor("Role_Id on s1: r10000024-1")
        try keys("Enter")
        try waitFor("(the paying account)? y/n")
        try literal("y")
    }
}
