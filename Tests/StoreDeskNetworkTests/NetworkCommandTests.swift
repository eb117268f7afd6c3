import Foundation
import StoreDeskCore
@testable import StoreDeskStore
import Testing

/// The network commands through the real binary: `simulate --callback-url`, `callback check`, `callback verify`.
@Suite(.serialized) struct NetworkCommandTests {
    @Test("simulate --callback-url POSTs to a PHP game server: grants on both sides, a clean store, attempts in the store")
    func simulateToPHP() throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let keys = Dictionary(uniqueKeysWithValues: try store.paymentCatalogue().apps.map { ($0.id, $0.appKey) })
        let php = try PHPGameServer(keys: keys, folder: folder)
        let run = try Binary.run(
            ["simulate", "--seconds", "10", "--rate", "20", "--seed", "3", "--fault", "tamperedSign:0.3", "--callback-url", php.url,
             "--json", "--db", path], folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let summary = object?["summary"] as? [String: Any] ?? [:]
        let grants = summary["grants"] as? Int ?? 0
        #expect(grants > 50)
        #expect((summary["callbacks_rejected"] as? Int ?? 0) > 0)
        #expect(try php.grants().count == grants)
        let reopened = try AppDatabase.open(path: path, access: .readOnly)
        #expect(try reopened.check().isEmpty)
        let statuses = try reopened.reader.read { db in
            try Int.fetchAll(db, sql: "SELECT DISTINCT http_status FROM server_callback WHERE url = ? ORDER BY 1", arguments: [php.url])
        }
        #expect(statuses == [200])
    }

    @Test("each app's own callback URL (apps set --callback-url) is used by simulate and by callback check when none is named")
    func perAppCallbackURL() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let store = try AppDatabase.open(path: path, access: .readWrite)
        let keys = Dictionary(uniqueKeysWithValues: try store.paymentCatalogue().apps.map { ($0.id, $0.appKey) })
        let php = try PHPGameServer(keys: keys, folder: folder)
        try store.writer.write { db in try db.execute(sql: "UPDATE app SET callback_url = ?", arguments: [php.url]) }
        let run = try Binary.run(["simulate", "--seconds", "5", "--rate", "10", "--json", "--db", path], folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let summary = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["summary"] as? [String: Any]
        let grants = summary?["grants"] as? Int ?? 0
        #expect(grants > 10)
        #expect(try php.grants().count == grants)
        let check = try Binary.run(["callback", "check", "--app", "app_galaxy", "--db", path], folder: folder)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.hasPrefix("callback check \(php.url) as app_galaxy"))
    }

    @Test("bad --callback-url, --concurrency and --timeout values: one line, exit 1, the store untouched")
    func badValues() throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        _ = try Fixtures.demoStore(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let cases: [([String], String)] = [
            (["--callback-url", "ftp://x/callback"], "storedesk: --callback-url 'ftp://x/callback' is not an http:// or https:// URL"),
            (["--callback-url", "http://127.0.0.1:1/c", "--concurrency", "0"], "storedesk: --concurrency must be from 1 to 1024"),
            (["--callback-url", "http://127.0.0.1:1/c", "--timeout", "0"], "storedesk: --timeout must be above 0"),
        ]
        for (arguments, prefix) in cases {
            let result = try Binary.run(["simulate", "--db", path] + arguments, folder: folder)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.hasPrefix(prefix), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("callback check: exit 0 and 'all rules hold' against the PHP server; exit 1 naming the rule against a broken one; JSON with the key masked")
    func checkCommand() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let good = try PHPGameServer(keys: ["app_galaxy": "k3y-S3cr3t-2026"], folder: folder)
        let pass = try Binary.run(["callback", "check", good.url, "--app", "app_galaxy", "--db", path], folder: folder)
        #expect(pass.status == 0, "\(pass.stdout)")
        #expect(pass.stdout.contains("all 15 rules hold"))
        #expect(!pass.stdout.contains("k3y-S3cr3t-2026"))
        #expect(pass.stdout.contains("k3y-****26"))
        let again = try Binary.run(["callback", "check", good.url, "--app", "app_galaxy", "--json", "--db", path], folder: folder)
        #expect(again.status == 0, "re-running against the same server stays clean")
        let object = try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any]
        #expect(object?["ok"] as? Bool == true)
        #expect(object?["app_key"] as? String == "k3y-****26")
        #expect((object?["cases"] as? [[String: Any]])?.count == 15)

        let broken = try PHPGameServer(keys: ["app_galaxy": "k3y-S3cr3t-2026"], breaking: "case-sensitive", folder: folder)
        let fail = try Binary.run(["callback", "check", broken.url, "--app", "app_galaxy", "--db", path], folder: folder)
        #expect(fail.status == 1)
        #expect(fail.stdout.contains("FAIL  sign-upper-case"))
        #expect(fail.stdout.contains("1 of 15 rules do not hold: sign-upper-case"))

        let unknown = try Binary.run(["callback", "check", good.url, "--app", "nope", "--db", path], folder: folder)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.hasPrefix("storedesk: no app nope in "))
    }
}
