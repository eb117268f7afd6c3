import Foundation
import PostgresClusterSupport
import Testing

/// The throwaway cluster itself: it starts, holds a schema with CJK text, and is gone when stopped, even
/// when the test that made it fails.
@Suite(.serialized) struct PostgresClusterTests {
    @Test func aThrowawayClusterServesAndIsGoneWhenStopped() throws {
        let cluster = try PostgresCluster()
        #expect(cluster.isAccepting)
        try cluster.psql("CREATE DATABASE store")
        try cluster.psql(
            "CREATE TABLE player (id text PRIMARY KEY, name text NOT NULL); INSERT INTO player VALUES ('10000001', '阿伟'), ('10000002', '芳芳🌸')",
            database: "store")
        #expect(try cluster.psql("SELECT name FROM player ORDER BY id", database: "store") == "阿伟\n芳芳🌸\n")
        #expect(throws: PostgresCluster.Failure.self) { try cluster.psql("SELECT * FROM no_such_table", database: "store") }
        let folder = cluster.folder
        cluster.stop()
        #expect(!cluster.isAccepting)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
    }

    @Test func aClusterLeftByAFailingTestIsStoppedWhenItGoesAway() throws {
        var folder: URL?
        var port = 0
        do {
            let cluster = try PostgresCluster()
            (folder, port) = (cluster.folder, cluster.port)
            #expect(cluster.isAccepting)
        }
        let probe = try #require(PostgresCluster.binaries).appendingPathComponent("pg_isready").path
        #expect(throws: PostgresCluster.Failure.self) { try PostgresCluster.run(probe, ["-q", "-h", "127.0.0.1", "-p", "\(port)", "-t", "1"]) }
        #expect(!FileManager.default.fileExists(atPath: try #require(folder).path))
    }
}
