import Foundation
import PostgresClusterSupport
import Testing

/// `storedesk store copy` through the real binary: the demo store from a SQLite file into a PostgreSQL
/// database on a throwaway cluster and back into a new file, every side then answering `check --json`,
/// `user show --json`, `subs --json` and `find --json` alike; a copy refused at the start or part-way leaves
/// its destination as it was (no file, a database without a table).
@Suite(.serialized) struct StoreCopyCommandTests {
    @Test func aStoreGoesToPostgreSQLAndBackAndEverySideAgrees() throws {
        let cluster = try PostgresCluster.shared()
        let home = TemporaryHome()
        try home.withDemoStore()
        // A short name: the console's header shows it, and the frames compared below must lay out alike.
        let file = home.defaultStore, url = cluster.url(database: try cluster.newDatabase(named: "team")), back = home.path("back.sqlite")

        let there = try Binary.run(["store", "copy", "--from", file, "--to", url, "--json"], home: home)
        #expect(there.status == 0, "\(there.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(there.stdout.utf8)) as? [String: Any])
        let tables = try #require(report["tables"] as? [String: Int])
        #expect(tables["user"] == 40 && tables["app"] == 3 && tables["audit_log"] != nil && tables["trust_root"] != nil, "\(tables)")
        let verified = try #require(report["verified"] as? [String: Any])
        #expect(verified["clean"] as? Bool == true && verified["players"] as? Int == 40, "\(verified)")
        #expect((verified["subscribers"] as? Int ?? 0) > 0, "\(verified)")

        let home2 = try Binary.run(["store", "copy", "--from", url, "--to", back], home: home)
        #expect(home2.status == 0, "\(home2.stderr)")
        #expect(home2.stdout.contains("copied") && home2.stdout.contains("user show agrees for 40 players"), "\(home2.stdout)")

        for arguments in [
            ["check", "--json"], ["user", "show", "10000001", "--json"], ["user", "show", "10000024", "--json"],
            ["subs", "10000003", "--json"], ["subs", "10000005", "--json"], ["find", "2000000100000093", "--json"],
            ["restore", "list", "--status", "all", "--json"], ["audit", "--json"],
        ] {
            let answers = try [file, url, back].map { store in
                let run = try Binary.run(arguments + ["--db", store], home: home)
                #expect(run.status == 0, "\(arguments) on \(store): \(run.stderr)")
                return run.stdout.replacingOccurrences(of: store, with: "STORE")
            }
            #expect(answers[0] == answers[1] && answers[1] == answers[2], "\(arguments) differs")
        }
        // The copied player list keeps its creation order on every side: the Users screen is the same frame.
        let frames = try [file, url, back].map { store in
            try Binary.run(["snapshot", "--screen", "users", "--size", "120x40", "--db", store], home: home).stdout
                .replacingOccurrences(of: Self.headerLabel(store), with: "STORE")
        }
        #expect(frames[0] == frames[1] && frames[1] == frames[2], "\(frames)")
    }

    /// How the console's header names a store: a file by its name, a team store as `database@host:port`.
    static func headerLabel(_ store: String) -> String {
        guard let address = URLComponents(string: store), let host = address.host, let port = address.port else {
            return (store as NSString).lastPathComponent
        }
        return "\(address.path.dropFirst())@\(host):\(port)"
    }

    @Test func aCopyThatCannotBeMadeLeavesItsDestinationAsItWas() throws {
        let cluster = try PostgresCluster.shared()
        let home = TemporaryHome()
        let holding = try cluster.newDatabase("holding"), emptyDatabase = try cluster.newDatabase("empty")
        try home.withDemoStore()
        let file = home.defaultStore
        let full = cluster.url(database: holding), empty = cluster.url(database: emptyDatabase)
        #expect(try Binary.run(["store", "copy", "--from", file, "--to", full], home: home).status == 0)

        // Into a database that holds a store: refused before anything is written.
        let twice = try Binary.run(["store", "copy", "--from", file, "--to", full], home: home)
        #expect(twice.status == 1 && twice.stderr.contains("already holds a store") && twice.stderr.split(separator: "\n").count == 1, "\(twice.stderr)")
        #expect(try cluster.psql("SELECT count(*) FROM \"user\"", database: holding).trimmingCharacters(in: .whitespacesAndNewlines) == "40")
        // Onto an existing file without --force, or onto the source itself.
        let existing = try Binary.run(["store", "copy", "--from", full, "--to", file], home: home)
        #expect(existing.status == 1 && existing.stderr.contains("already exists"), "\(existing.stderr)")
        let same = try Binary.run(["store", "copy", "--from", file, "--to", file], home: home)
        #expect(same.status != 0 && same.stderr.contains("the same store"), "\(same.stderr)")

        // A source with a value PostgreSQL refuses (a hand edit past SQLite's CHECK): refused part-way, in one
        // line, and the database is left without a trace of the copy, its schema included.
        let damaged = home.path("damaged.sqlite")
        try FileManager.default.copyItem(atPath: file, toPath: damaged)
        _ = try PostgresCluster.run(
            "/usr/bin/sqlite3", [damaged, "PRAGMA ignore_check_constraints = ON; UPDATE user SET site = 5 WHERE id = (SELECT max(id) FROM user)"])
        let refused = try Binary.run(["store", "copy", "--from", damaged, "--to", empty], home: home)
        #expect(refused.status == 1 && refused.stderr.split(separator: "\n").count == 1 && !refused.stderr.contains("INSERT"), "\(refused.stderr)")
        #expect(try cluster.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: emptyDatabase).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        // A source nobody answers for: one line naming it, and no file is made.
        let back = home.path("never.sqlite")
        let bad = try Binary.run(["store", "copy", "--from", "postgres://nobody@127.0.0.1:1/none", "--to", back], home: home)
        #expect(bad.status == 1 && bad.stderr.contains("postgres://nobody@127.0.0.1:1/none") && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: back))
    }
}
