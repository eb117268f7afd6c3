import Foundation
import PostgresClusterSupport
import Testing

/// Several machines on one team store: two network namespaces joined by a veth pair, a
/// PostgreSQL server in one ("the database machine", reached over TCP with a SCRAM password from
/// ~/.pgpass), and in the other ("the app machine") two `serve` processes, two consoles in tmux each running
/// the console's own simulation, and two `simulate` processes POSTing callbacks to the two serves. One
/// serve, one simulation and one console are killed with SIGKILL mid-run; the rest finish, a last run takes
/// the dead ones' work over, and then: every process that was not killed exits 0, `check` is clean, no
/// order is granted twice, and every paid purchase is granted exactly once.
///
/// Where namespaces cannot be made (not root, no `ip`), the same test runs on 127.0.0.1 and says so.
@Suite(.serialized) struct TeamStoreAcrossMachinesTests {
    /// Two network namespaces and the veth pair between them, removed when the value goes away.
    final class Machines {
        let database: String?
        let app: String?
        let databaseAddress: String
        let appAddress: String
        /// Why the test runs on 127.0.0.1, when it does.
        let fallback: String?

        init() {
            let tag = String(UUID().uuidString.prefix(6)).lowercased()
            let net = Int.random(in: 1...250)
            let db = "sd-db-\(tag)", app = "sd-app-\(tag)"
            let steps = [
                "ip netns add \(db)", "ip netns add \(app)",
                "ip link add vd\(tag) type veth peer name va\(tag)",
                "ip link set vd\(tag) netns \(db)", "ip link set va\(tag) netns \(app)",
                "ip -n \(db) addr add 10.231.\(net).1/24 dev vd\(tag)", "ip -n \(app) addr add 10.231.\(net).2/24 dev va\(tag)",
                "ip -n \(db) link set lo up", "ip -n \(app) link set lo up",
                "ip -n \(db) link set vd\(tag) up", "ip -n \(app) link set va\(tag) up",
            ]
            var failed: String?
            if getuid() != 0 {
                failed = "not root"
            } else {
                for step in steps {
                    let result: (status: Int32, output: String) = (try? shell(step)) ?? (status: 1, output: "could not run")
                    if result.status != 0 {
                        failed = "`\(step)`: \(result.output.trimmingCharacters(in: .whitespacesAndNewlines))"
                        break
                    }
                }
            }
            if let failed {
                _ = try? shell("ip netns del \(db) 2>/dev/null; ip netns del \(app) 2>/dev/null")
                database = nil
                self.app = nil
                databaseAddress = "127.0.0.1"
                appAddress = "127.0.0.1"
                fallback = failed
            } else {
                database = db
                self.app = app
                databaseAddress = "10.231.\(net).1"
                appAddress = "10.231.\(net).2"
                fallback = nil
            }
        }

        deinit {
            if let database, let app { _ = try? shell("ip netns del \(database); ip netns del \(app)") }
        }

        /// A shell command run on the app machine.
        func onApp(_ command: String) -> String { app.map { "ip netns exec \($0) " + command } ?? command }
    }

    static func quote(_ text: String) -> String { RestoreCommandTests.quote(text) }

    /// `storedesk ARGS` on the app machine, as a shell command line.
    static func storedesk(_ arguments: [String], home: TemporaryHome, on machines: Machines) -> String {
        machines.onApp(ConcurrentWritersTests.command(arguments, home: home))
    }

    /// Runs `storedesk ARGS` on the app machine to its end: its status and what it said.
    static func run(_ arguments: [String], home: TemporaryHome, on machines: Machines) throws -> (status: Int32, output: String) {
        try shell(storedesk(arguments, home: home, on: machines) + " 2>&1")
    }

    /// Waits (at most 30 s) until `url` answers on the app machine.
    static func waitForServe(_ url: String, on machines: Machines) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if try shell(machines.onApp("curl -s -o /dev/null --max-time 1 \(url)/healthz")).status == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("nothing answers at \(url)")
    }

    static func count(_ cluster: PostgresCluster, _ query: String) throws -> Int {
        Int(try cluster.psql(query, database: "team").trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func serversConsolesAndSimulationsOnTwoMachinesShareOneStoreThroughKills() throws {
        let machines = Machines()
        if let why = machines.fallback {
            print("TeamStoreAcrossMachinesTests: no network namespaces (\(why)): running on 127.0.0.1")
        }
        let cluster = try PostgresCluster(listen: machines.databaseAddress, namespace: machines.database)
        let home = TemporaryHome()
        // The team's role: a password over TCP (SCRAM), read from the app machine's ~/.pgpass.
        try cluster.requirePassword(role: "team", password: "s3cret-team", from: machines.database == nil ? "127.0.0.1/32" : "\(machines.appAddress)/32")
        try cluster.psql("CREATE DATABASE team OWNER team")
        let pgpass = home.url.appendingPathComponent(".pgpass").path
        try "\(machines.databaseAddress):\(cluster.port):team:team:s3cret-team\n".write(toFile: pgpass, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: pgpass)
        let url = cluster.url(database: "team", user: "team")

        // The demo store, copied onto the database machine from the app machine.
        try home.withDemoStore()
        let copy = try Self.run(["store", "copy", "--from", home.defaultStore, "--to", url], home: home, on: machines)
        #expect(copy.status == 0, "\(copy.output)")

        // Two serve processes, each at its own port on the app machine.
        let ports = [try PostgresCluster.freePort(), try PostgresCluster.freePort()]
        let serves = try ports.enumerated().map { n, port in
            try ConcurrentWritersTests.Background(
                "exec " + Self.storedesk(["serve", "--listen", "\(machines.appAddress):\(port)", "--db", url, "--log", home.path("serve\(n).log")], home: home, on: machines)
                    + " >/dev/null 2>" + Self.quote(home.path("serve\(n).err")))
        }
        let serveURLs = ports.map { "http://\(machines.appAddress):\($0)" }
        for serveURL in serveURLs { try Self.waitForServe(serveURL, on: machines) }

        // Two consoles, each running its own simulation; two simulations POSTing to one serve each.
        let consoles = try (0..<2).map { n in try ConcurrentWritersTests.console(url, home: home, name: "console\(n)", on: machines.onApp) }
        let simulations = try (0..<2).map { n in
            try ConcurrentWritersTests.Background(
                "exec " + Self.storedesk(
                    ["simulate", "--seconds", "200", "--rate", "10", "--speed", "20", "--seed", "\(n + 1)", "--db", url,
                     "--callback-url", serveURLs[n] + "/callback", "--fault", "duplicateCallback:0.2", "--fault", "networkDrop:0.1"],
                    home: home, on: machines)
                    + " >/dev/null 2>" + Self.quote(home.path("simulate\(n).err")))
        }

        // Once all of them have work in flight, SIGKILL one of each kind.
        let deadline = Date().addingTimeInterval(60)
        while try Self.count(cluster, "SELECT count(DISTINCT run_id) FROM store_transaction WHERE finished = 0 AND run_id IS NOT NULL") < 4
            && Date() < deadline
        {
            Thread.sleep(forTimeInterval: 0.2)
        }
        Thread.sleep(forTimeInterval: 1)
        let consolePid = try String(contentsOfFile: home.path("console0.pid"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try shell("kill -9 \(serves[0].process.processIdentifier) \(simulations[0].process.processIdentifier) \(consolePid)")
        #expect(serves[0].finish(within: 10) == 128 + SIGKILL)
        #expect(simulations[0].finish(within: 10) == 128 + SIGKILL)

        // The rest go on to their ends.
        #expect(simulations[1].finish(within: 300) == 0, ConcurrentWritersTests.text(home.path("simulate1.err")))
        let quit = try ConcurrentWritersTests.quit(consoles[1], home: home, marker: home.path("console1.exit"))
        #expect(quit.hasPrefix("EXIT=0"), "\(quit)")
        // A last run takes the dead ones' work over (their callbacks go to the serve that lives).
        let last = try Self.run(
            ["simulate", "--seconds", "600", "--rate", "0.0001", "--db", url, "--callback-url", serveURLs[1] + "/callback"], home: home, on: machines)
        #expect(last.status == 0, "\(last.output)")
        kill(serves[1].process.processIdentifier, SIGTERM)
        #expect(serves[1].finish(within: 20) == 0, ConcurrentWritersTests.text(home.path("serve1.err")))

        // The store is clean; nothing is granted twice; every paid purchase is granted once.
        let check = try Self.run(["check", "--db", url], home: home, on: machines)
        #expect(check.status == 0 && check.output.contains("is clean"), "\(check.output)")
        #expect(try Self.count(cluster, "SELECT count(*) FROM (SELECT order_id FROM item_grant GROUP BY order_id HAVING count(*) > 1) d") == 0)
        #expect(try Self.count(cluster, "SELECT count(*) FROM (SELECT order_id FROM game_server_grant GROUP BY order_id HAVING count(*) > 1) d") == 0)
        let crashed = "EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')"
        let simulated = "(t.id LIKE 'sim%' OR t.id LIKE 'live%')"
        let grants = "(SELECT count(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.transaction_id = t.id)"
        #expect(try Self.count(cluster, "SELECT count(*) FROM store_transaction t WHERE \(simulated) AND t.finished = 0 AND NOT \(crashed)") == 0)
        #expect(try Self.count(cluster, "SELECT count(*) FROM store_transaction t WHERE \(simulated) AND t.state = 'purchased' AND NOT \(crashed) AND \(grants) <> 1") == 0)
        #expect(try Self.count(cluster, "SELECT count(*) FROM store_transaction t WHERE \(simulated) AND t.state = 'purchased' AND \(grants) = 1") > 100)
        #expect(try Self.count(cluster, "SELECT count(*) FROM payment_order WHERE status = 'pending' AND order_id IN (SELECT order_id FROM item_grant)") == 0)
        // Both serves answered callbacks, and the consoles simulated.
        #expect(try Self.count(cluster, "SELECT count(*) FROM game_server_grant") > 20)
        #expect(try Self.count(cluster, "SELECT count(*) FROM transaction_event WHERE transaction_id LIKE 'live%'") > 20)
    }
}
