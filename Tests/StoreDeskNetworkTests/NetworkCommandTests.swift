import Foundation
import StoreDeskCore
@testable import StoreDeskSQLite
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
        // The run's HTTP deliveries: every attempt, delivered or refused, with its latency percentiles.
        let http = summary["http"] as? [String: Any] ?? [:]
        let attempts = try reopened.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM server_callback WHERE url = ?", arguments: [php.url]) ?? 0
        }
        #expect(http["attempts"] as? Int == attempts)
        #expect((http["delivered"] as? Int ?? 0) >= grants)
        #expect((http["failures"] as? [String: Int])?["not_success"] == summary["callbacks_rejected"] as? Int)
        let latency = http["latency_us"] as? [String: Int] ?? [:]
        #expect((latency["p50"] ?? 0) > 0 && (latency["p50"] ?? 0) <= (latency["p99"] ?? 0) && (latency["p99"] ?? 0) <= (latency["max"] ?? 0))
        // The text report says the same in a line.
        let text = try Binary.run(["simulate", "--seconds", "3", "--rate", "10", "--seed", "4", "--callback-url", php.url, "--db", path], folder: folder)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("\nhttp            ") && text.stdout.contains(" POSTed: ") && text.stdout.contains(" · p50 "), "\(text.stdout)")
        // Without a game server over HTTP, `http` is null.
        let local = try Binary.run(["simulate", "--seconds", "2", "--rate", "5", "--json", "--db", path], folder: folder)
        let localSummary = (try JSONSerialization.jsonObject(with: Data(local.stdout.utf8)) as? [String: Any])?["summary"] as? [String: Any]
        #expect(localSummary?["http"] is NSNull)
    }

    @Test("queue list|show: the queue headless, each callback attempt's HTTP status, reply and latency, as text and JSON")
    func queueListAndShow() throws {
        let folder = TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try Fixtures.demoStore(at: path)
        let keys = Dictionary(uniqueKeysWithValues: try store.paymentCatalogue().apps.map { ($0.id, $0.appKey) })
        let php = try PHPGameServer(keys: keys, folder: folder)
        // Tampered signs get "fail: bad sign" from PHP, then are retried: transactions with several attempts.
        let run = try Binary.run(
            ["simulate", "--seconds", "20", "--rate", "5", "--seed", "9", "--fault", "tamperedSign:0.5", "--callback-url", php.url,
             "--db", path], folder: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let reader = try AppDatabase.open(path: path, access: .readOnly)
        // A transaction whose first attempt PHP refused and a later one it accepted.
        let transaction = try #require(
            try reader.reader.read { db in
                try String.fetchOne(
                    db,
                    sql: """
                        SELECT o.transaction_id FROM payment_order o
                        WHERE EXISTS (SELECT 1 FROM server_callback c WHERE c.order_id = o.order_id AND c.verdict = 'refused')
                          AND EXISTS (SELECT 1 FROM server_callback c WHERE c.order_id = o.order_id AND c.verdict = 'accepted')
                        ORDER BY o.order_id LIMIT 1
                        """)
            })
        let show = try Binary.run(["queue", "show", transaction, "--json", "--db", path], folder: folder)
        #expect(show.status == 0, "\(show.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any] ?? [:]
        let callbacks = object["callbacks"] as? [[String: Any]] ?? []
        #expect(callbacks.count >= 2)
        #expect(callbacks.allSatisfy { $0["url"] as? String == php.url && $0["http_status"] as? Int == 200 && ($0["latency_us"] as? Int ?? 0) > 0 })
        #expect(callbacks.contains { $0["verdict"] as? String == "refused" && $0["reply"] as? String == "fail: bad sign" })
        #expect(callbacks.last?["verdict"] as? String == "accepted" && callbacks.last?["reply"] as? String == "success")
        #expect((object["granted_at"] as? String)?.hasPrefix("20") == true)

        let text = try Binary.run(["queue", "show", transaction, "--db", path], folder: folder)
        #expect(text.stdout.hasPrefix("transaction \(transaction) · "), "\(text.stdout)")
        #expect(text.stdout.contains(" refused · HTTP 200 · ") && text.stdout.contains(" · \"fail: bad sign\""), "\(text.stdout)")
        #expect(text.stdout.contains(" accepted · HTTP 200 · ") && text.stdout.contains(" ms · \"success\""))
        #expect(text.stdout.contains("    url     \(php.url)"))

        let list = try Binary.run(["queue", "list", "--json", "--limit", "5", "--db", path], folder: folder)
        #expect(list.status == 0, "\(list.stderr)")
        let listed = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any] ?? [:]
        let http = listed["http"] as? [String: Any] ?? [:]
        #expect((http["attempts"] as? Int ?? 0) > 0 && (http["delivered"] as? Int ?? 0) > 0)
        #expect((http["failures"] as? [String: Int])?["not_success"] ?? 0 > 0)
        let rows = listed["transactions"] as? [[String: Any]] ?? []
        #expect(!rows.isEmpty && rows.count <= 5)
        let counts = listed["counts"] as? [String: Int] ?? [:]
        #expect(counts.values.reduce(0, +) == (try reader.queueCounts().values.reduce(0, +)))
        let listText = try Binary.run(["queue", "list", "--state", "purchased", "--db", path], folder: folder)
        #expect(listText.stdout.contains(" in queue: purchasing ") && listText.stdout.contains("\nHTTP latest "), "\(listText.stdout)")

        for (arguments, message) in [
            (["queue", "show", "nope"], "storedesk: no transaction nope in "),
            (["queue", "list", "--state", "paid"], "storedesk: The value 'paid' is invalid for '--state <state>'. Please provide one of 'purchasing', "),
            (["queue", "list", "--limit", "0"], "storedesk: --limit must be from 1 to 10000, got 0"),
        ] {
            let bad = try Binary.run(arguments + ["--db", path], folder: folder)
            // A value --state does not take is a usage error (64); a rule validate() checks exits 1.
            #expect(bad.status == (arguments.contains("--state") ? 64 : 1), "\(arguments)")
            #expect(bad.stderr.hasPrefix(message) && bad.stderr.filter { $0 == "\n" }.count == 1, "\(bad.stderr)")
        }
    }

    @Test("each app's own callback URL (apps set --callback-url) is used by simulate and by callback check when none is named")
    func perAppCallbackURL() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let store = try AppDatabase.open(path: path, access: .readWrite)
        let keys = Dictionary(uniqueKeysWithValues: try store.paymentCatalogue().apps.map { ($0.id, $0.appKey) })
        let php = try PHPGameServer(keys: keys, folder: folder)
        try store.write { db in try db.execute(sql: "UPDATE app SET callback_url = ?", arguments: [php.url]) }
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
