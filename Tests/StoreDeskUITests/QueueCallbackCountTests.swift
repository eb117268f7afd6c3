import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskUI

/// The Queue's detail counts every callback attempt its timeline lists: one the game server never got
/// (it was down) leaves no callback row, only an event, and still counts.
@Suite struct QueueCallbackCountTests {
    @Test func callbacksCountAttemptsThatNeverReachedTheServer() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 60), role: .developer)
        console.show("queue")
        console.press(.character("r"), .character("x"))
        console.type("serverDown:600")
        console.press(.enter)
        // Run until a transaction still in the queue has had attempts refused by the down server.
        var found: String?
        var now = console.state.clock
        for _ in 0..<200 where found == nil {
            now = now.adding(.init(millis: 100))
            console.runtime.dispatch(.tick(now))
            found = try console.outside().read {
                try String.fetchOne(
                    $0,
                    sql: """
                        SELECT e.transaction_id FROM transaction_event e JOIN store_transaction t ON t.id = e.transaction_id
                        JOIN payment_order o ON o.transaction_id = t.id
                        WHERE e.kind IN ('server_down', 'callback_dropped') AND t.finished = 0
                        GROUP BY e.transaction_id HAVING COUNT(*) >= 2 LIMIT 1
                        """)
            }
        }
        let id = try #require(found)
        console.press(.character(" "))  // pause, so the counts hold still
        console.show("select \(id)")
        console.press(.enter)
        let (rows, lost) = try console.outside().read { db in
            (
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM server_callback c JOIN payment_order o ON o.order_id = c.order_id WHERE o.transaction_id = ?",
                    arguments: [id]) ?? -1,
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM transaction_event WHERE transaction_id = ? AND kind IN ('server_down', 'callback_dropped')",
                    arguments: [id]) ?? -1
            )
        }
        let text = console.text
        #expect(lost >= 2)
        #expect(text.contains("Callbacks (\(rows + lost))"), "\(text)")
        #expect(text.contains("\(lost) never reached the game server"), "\(text)")
        #expect(!text.contains("Callbacks (0)"))
    }
}
