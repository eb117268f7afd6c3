import Foundation
import PostgresClusterSupport
import StoreDeskPostgres
import StoreDeskSQLite
import Testing

/// The real binary with `--db postgres://…` (and STOREDESK_DB) against a throwaway cluster: the commands
/// answer as they do on the same store in a SQLite file, and an address that is wrong, a port nobody
/// listens on, or a wrong password is one line naming the store, never a password.
@Suite(.serialized) struct TeamStoreCommandTests {
    /// A database holding the demo store, its URL, and the same store in a SQLite file beside it.
    final class TeamStore {
        let cluster: PostgresCluster
        let home = TemporaryHome()
        /// The database's name on the cluster.
        let database: String
        let url: String
        let sqlite: String

        /// - Parameter ownCluster: on a cluster of its own (a test that restarts the server), not the one
        ///   the test process shares.
        init(ownCluster: Bool = false) throws {
            cluster = ownCluster ? try PostgresCluster() : try PostgresCluster.shared()
            // A cluster of its own is the test's alone: its database has the plain name the console's header shows.
            database = try cluster.newDemoDatabase("team", named: ownCluster ? "team" : nil)
            url = cluster.url(database: database)
            try home.withDemoStore()
            sqlite = home.path("demo.sqlite")
            try FileManager.default.copyItem(atPath: home.defaultStore, toPath: sqlite)
        }

        /// The output with each store's name in it said the same way.
        func same(_ text: String) -> String {
            text.replacingOccurrences(of: url, with: "STORE").replacingOccurrences(of: sqlite, with: "STORE")
        }

        /// Runs `arguments` on both stores: both must succeed, and say the same.
        func both(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (sqlite: Binary.Result, postgres: Binary.Result) {
            let onFile = try Binary.run(arguments + ["--db", sqlite], home: home)
            let onServer = try Binary.run(arguments + ["--db", url], home: home)
            #expect(onFile.status == 0, "\(arguments): \(onFile.stderr)", sourceLocation: sourceLocation)
            #expect(onServer.status == 0, "\(arguments) on PostgreSQL: \(onServer.stderr)", sourceLocation: sourceLocation)
            #expect(same(onServer.stdout) == same(onFile.stdout), "\(arguments)", sourceLocation: sourceLocation)
            #expect(!onServer.stdout.isEmpty, "\(arguments) said nothing", sourceLocation: sourceLocation)
            return (onFile, onServer)
        }
    }

    @Test func theCommandsAnswerOnPostgreSQLAsOnTheSameSQLiteStore() throws {
        let team = try TeamStore()
        for arguments in [
            ["check", "--json"], ["user", "show", "10000001", "--json"], ["user", "show", "10000017", "--json"], ["subs", "10000005", "--json"],
            ["subs", "10000006", "--json"], ["find", "10000001"], ["find", "张伟"], ["restore", "list", "--status", "all", "--json"],
        ] {
            _ = try team.both(arguments)
        }
        // STOREDESK_DB names the team store as --db does.
        let byEnvironment = try Binary.run(["check", "--json"], home: team.home, environment: ["STOREDESK_DB": team.url])
        #expect(byEnvironment.status == 0, "\(byEnvironment.stderr)")
        #expect(team.same(byEnvironment.stdout) == team.same(try Binary.run(["check", "--json", "--db", team.sqlite], home: team.home).stdout))
        // Confirming an open prompt writes the same on both, and both stores then read the same.
        let list = try Binary.run(["restore", "list", "--json", "--db", team.url], home: team.home)
        let prompts = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
        let prompt = try #require(prompts.first { $0["status"] as? String == "open" })
        let id = try #require(prompt["transactionIdentifier"] as? String)
        let payer = try #require(prompt["payingAccount"] as? [String: Any])
        let user = payer["userId"] as? String ?? ""
        let confirm = [
            "restore", "confirm", id, "--account", user, "--sid", payer["sid"] as? String ?? "", "--role-id", payer["roleId"] as? String ?? "",
            "--role", "support", "--as", "li.support", "--json",
        ]
        let (confirmed, _) = try team.both(confirm)
        #expect(confirmed.stdout.contains("\"confirmed\""), "\(confirmed.stdout)")
        _ = try team.both(["user", "show", user, "--json"])
        _ = try team.both(["check", "--json"])
        // A second confirm is refused on both, the same way.
        let again = try Binary.run(confirm + ["--db", team.url], home: team.home)
        let againOnFile = try Binary.run(confirm + ["--db", team.sqlite], home: team.home)
        #expect(again.status != 0 && again.status == againOnFile.status)
        #expect(team.same(again.stderr) == team.same(againOnFile.stderr))
    }

    @Test func aBadAddressARefusedPortAndAWrongPasswordAreOneLine() throws {
        let team = try TeamStore()
        let port = team.cluster.port
        let nobody = try PostgresCluster.freePort()
        try team.cluster.requirePassword(role: "alice", password: "right-secret")
        let passfile = team.home.path("pgpass")
        try "127.0.0.1:\(port):team:alice:wrong-secret\n".write(toFile: passfile, atomically: true, encoding: .utf8)
        chmod(passfile, 0o600)
        let cases: [(String, [String: String], String)] = [
            ("postgres://", [:], "PostgreSQL address"),
            ("postgres://tester@127.0.0.1:\(nobody)/team", [:], "refused"),
            ("postgres://alice@127.0.0.1:\(port)/team?sslmode=disable", ["PGPASSFILE": passfile], "wrong password"),
            ("postgres://alice:s3cret-in-url@127.0.0.1:\(port)/team", [:], "password"),
            ("postgres://\(team.cluster.user)@127.0.0.1:\(port)/nosuchdb", [:], "no database"),
        ]
        for (url, environment, what) in cases {
            for arguments in [["check", "--json"], ["user", "show", "10000001"]] {
                let result = try Binary.run(arguments + ["--db", url], home: team.home, environment: environment)
                HardeningTests.expectOneLineError(result, what)
                #expect(result.stderr.contains(what), "\(url): \(result.stderr)")
                #expect(!result.stderr.contains("secret") && !result.stderr.contains("SELECT"), "\(url): \(result.stderr)")
            }
        }
    }

    @Test func seedWritesTheSameStoreOnPostgreSQLAndRefusesToOverwrite() throws {
        let team = try TeamStore()
        let seeded = try team.cluster.newDatabase("seeded")
        let url = team.cluster.url(database: seeded)
        let file = team.home.path("seeded.sqlite")
        let onServer = try Binary.run(["seed", "--users", "120", "--seed", "9", "--db", url], home: team.home)
        #expect(onServer.status == 0, "\(onServer.stderr)")
        #expect(onServer.stdout.contains("seeded 120 users"), "\(onServer.stdout)")
        #expect(try Binary.run(["seed", "--users", "120", "--seed", "9", "--db", file], home: team.home).status == 0)
        for arguments in [["check", "--json"], ["user", "show", "10000007", "--json"], ["subs", "10000003", "--json"]] {
            let a = try Binary.run(arguments + ["--db", url], home: team.home)
            let b = try Binary.run(arguments + ["--db", file], home: team.home)
            #expect(a.status == b.status, "\(arguments): \(a.stderr)")
            #expect(a.stdout.replacingOccurrences(of: url, with: "S") == b.stdout.replacingOccurrences(of: file, with: "S"), "\(arguments)")
        }
        // A database that holds a store is never overwritten, --force or not: one line, the store as it was.
        for force in [[], ["--force"]] {
            let again = try Binary.run(["seed", "--users", "5", "--db", url] + force, home: team.home)
            HardeningTests.expectOneLineError(again, "seed over a store")
            #expect(again.stderr.contains(url), "\(again.stderr)")
        }
        #expect(try team.cluster.psql(#"SELECT count(*) FROM "user""#, database: seeded).contains("120"))
    }
}
