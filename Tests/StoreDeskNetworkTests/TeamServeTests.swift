import Foundation
import PostgresClusterSupport
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// Two `storedesk serve` processes on one team store (PostgreSQL on 127.0.0.1): the same callback sent to
/// both at once is granted once, whichever commits first; the other answers "success" as a repeat.
/// Processes, not threads: each serve has its own ledger and its own connection.
@Suite(.serialized) struct TeamServeTests {
    @Test func theSameCallbackAtTwoServeProcessesIsGrantedOnce() throws {
        let folder = TemporaryFolder()
        let cluster = try PostgresCluster.shared()
        let url = cluster.url(database: try cluster.newDatabase("team"))
        let store = try PostgresStore.open(try PostgresAddress(url), access: .create)
        defer { store.close() }
        _ = try store.load(from: try AppDatabase.open(path: try galaxyStore(folder), access: .readOnly))
        let first = try ServeProcess(store: url, folder: folder)
        let second = try ServeProcess(store: url, folder: folder)
        defer {
            first.stop()
            second.stop()
        }
        let orders = (0..<30).map { "2026030100\(String(format: "%04d", $0))" }
        // Every order to both servers at once: one curl making every request in parallel, a reply file each.
        var transfers: [String] = []
        for (index, order) in orders.enumerated() {
            let body = folder.path("body-\(index)")
            try Data(ServeTests.callback(order).utf8).write(to: URL(fileURLWithPath: body))
            for (name, serve) in [("a", first), ("b", second)] {
                transfers.append(
                    "-s --max-time 20 -H 'Content-Type: application/x-www-form-urlencoded' --data-binary @\(body) -o \(folder.path("reply-\(name)-\(index)")) \(serve.url)")
            }
        }
        _ = try shell("curl -Z --parallel-immediate --parallel-max 64 " + transfers.joined(separator: " --next "))
        for index in orders.indices {
            for name in ["a", "b"] {
                let reply = (try? String(contentsOfFile: folder.path("reply-\(name)-\(index)"), encoding: .utf8)) ?? ""
                #expect(reply == "success", "\(orders[index]) at \(name): \(reply)")
            }
        }
        #expect(first.stop() == 0 && second.stop() == 0)
        let grants = try store.gameServerGrants()
        #expect(grants.count == orders.count && Set(grants.map(\.orderId)) == Set(orders))
        let counts = try store.gameServerCallbackCounts()
        #expect(counts.granted == orders.count && counts.duplicate == orders.count, "\(counts)")
        #expect(try store.check() == [])
    }
}
