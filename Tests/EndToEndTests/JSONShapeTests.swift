import Foundation
import Testing

/// The `--json` shapes the README documents, pinned key by key on the real binary: scripts read these
/// keys, so a refactor of the command-line edges must not move one.
@Suite(.serialized) struct JSONShapeTests {
    static let developer = ["--role", "developer", "--as", "wei.dev"]
    static let support = ["--role", "support", "--as", "li.support"]

    /// Runs a command with `--json` on `db` and returns the decoded value (the command must succeed
    /// unless `status` says otherwise).
    static func json(_ arguments: [String], db: String?, home: TemporaryHome, status: Int32 = 0, stdin: String? = nil) throws -> Any {
        let run = try Binary.run(arguments + ["--json"] + (db.map { ["--db", $0] } ?? []), home: home, stdin: stdin)
        #expect(run.status == status, "\(arguments): \(run.stderr)")
        return try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
    }

    static func keys(_ value: Any?) -> Set<String> { Set((value as? [String: Any])?.keys.map { $0 } ?? []) }
    static func first(_ value: Any?) -> Any? { (value as? [Any])?.first }

    static let user: Set<String> = [
        "id", "name", "friendly_name", "id_card", "phone", "site", "site_name", "adult_type", "adult_type_name", "fcm",
        "authoriz_state", "safety", "client_id", "created_at", "guest",
    ]
    static let app: Set<String> = [
        "id", "name", "bundle_id", "app_key", "apple_app_id", "currency_per_yuan", "ownership", "grace_days", "environment",
        "callback_url", "notification_url",
    ]
    static let loginEntries: Set<String> = [
        "app", "app_name", "configured", "entries", "effective_entries", "platform", "os_version", "valid", "violations",
        "warnings", "notes", "legacy_notes", "panel", "checklist",
    ]

    @Test func readCommandsKeepTheREADMEShapes() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let db = home.path("demo.sqlite")
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: db)

        let search = try Self.json(["user", "search", "1000000"], db: db, home: home)
        #expect(Self.keys(Self.first(search)) == Self.user)
        let profile = try Self.json(["user", "show", "10000024"], db: db, home: home) as? [String: Any]
        #expect(Self.keys(profile) == ["user", "game_accounts", "subscriptions", "transaction_count", "open_restore_requests", "recent_transactions", "notifications"])
        let withNotifications = try Self.json(["user", "show", "10000005"], db: db, home: home) as? [String: Any]
        #expect(Self.keys(Self.first(withNotifications?["notifications"])) == [
            "id", "notification_uuid", "notification_type", "subtype", "signed_date", "send_state", "next_attempt_at", "attempts",
        ])
        #expect(Self.keys(profile?["user"]) == Self.user)
        #expect(Self.keys(Self.first(profile?["game_accounts"])) == ["app_id", "apple_id", "sid", "role_id", "role_name"])
        #expect(Self.keys(Self.first(profile?["recent_transactions"])) == ["transaction_id", "product_id", "state", "purchase_date", "finished"])

        let history = try Self.json(["user", "history", "10000006"], db: db, home: home) as? [String: Any]
        #expect(Self.keys(history) == ["user_id", "entries", "next_before"])
        #expect(Self.keys(Self.first(history?["entries"])) == [
            "at", "kind", "id", "transaction_id", "original_transaction_id", "order_id", "app_order_id", "detail", "trust",
        ])

        let exported = try Self.json(["user", "export", home.path("players.csv")], db: db, home: home) as? [String: Any]
        #expect(Self.keys(exported) == ["rows", "path", "format", "seconds"])

        let check = try Self.json(["check"], db: db, home: home)
        #expect(Self.keys(check) == ["clean", "violations"])

        let found = try Self.json(["find", "2611120001"], db: db, home: home)
        #expect(Self.keys(Self.first(found)) == FindCommandTests.resultKeys)

        let subs = try Self.json(["subs", "10000013"], db: db, home: home) as? [String: Any]
        #expect(Self.keys(subs) == [
            "user", "at", "unlocked", "inGracePeriod", "originalTransactionDate", "currentExpiresDate", "gracePeriodExpiresDate",
            "latest", "valid", "all", "groups", "product", "events",
        ])
        #expect(Self.keys(Self.first(subs?["groups"])) == ["subscriptionGroupIdentifier", "status", "state"])

        let trust = try Self.json(["trust", "list"], db: db, home: home) as? [String: Any]
        #expect(Self.keys(trust) == ["roots"])
        let root = Self.first(trust?["roots"]) as? [String: Any]
        #expect(Self.keys(root) == [
            "id", "sha256", "subject", "isAppleRootCAG3", "notValidBefore", "notValidAfter", "addedAt", "addedBy",
            "verifiedNotifications",
        ])
        #expect(root?["isAppleRootCAG3"] is Bool)
        #expect((root?["sha256"] as? String)?.count == 64)

        let apps = try Self.json(["apps", "list"], db: db, home: home)
        #expect(Self.keys(Self.first(apps)) == Self.app.union(["products", "catalogue"]))
        #expect(Self.keys(try Self.json(["apps", "show", "1001"], db: db, home: home)) == Self.app.union(["products", "catalogue"]))

        let catalogue = try Self.json(["catalog", "show", "--app", "1001"], db: db, home: home)
        #expect(Self.keys(catalogue) == ["app", "source", "settings", "groups", "products"])

        let shown = try Self.json(["login", "entries", "show", "--app", "1001"], db: db, home: home)
        #expect(Self.keys(shown) == Self.loginEntries.union(["history"]))
        #expect(Self.keys(try Self.json(["login", "entries", "check", "--app", "1001"], db: db, home: home)) == Self.loginEntries)

        let codes = try Self.json(["login", "onetap", "codes", "103000"], db: nil, home: home)
        #expect(Self.keys(Self.first(codes)) == ["code", "carrier_text", "meaning"])
        #expect(Self.keys(try Self.json(["login", "onetap", "settings"], db: db, home: home)) == [
            "app_id", "app_key", "timeout_ms", "effective_timeout_ms", "network", "carrier", "phone", "latency_ms", "cached_credential",
            "clock_offset_seconds", "tokens_unused",
        ])

        let prompts = try Self.json(["restore", "list", "--status", "all"], db: db, home: home)
        let prompt = Self.keys(Self.first(prompts))
        #expect(prompt.isSuperset(of: ["transactionIdentifier", "productId", "userId", "appId", "status", "candidates"]), "\(prompt)")

        let audit = try Self.json(["audit"], db: db, home: home)
        #expect(Self.keys(Self.first(audit)) == ["id", "at", "actor", "role", "action", "subject", "detail"])

        let body = "amount=6&app_id=1001&order_id=1&sign=00"
        let verdict = try Self.json(["callback", "verify", "--app", "1001"], db: db, home: home, status: 1, stdin: body)
        #expect(Self.keys(verdict) == [
            "valid", "verdict", "order_id", "reason", "expected_sign", "received_sign", "hashed_string", "warnings",
        ])
    }

    @Test func writeCommandsKeepTheREADMEShapes() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let db = home.path("demo.sqlite")
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: db)

        let seeded = try Self.json(["seed", "--users", "5"], db: home.path("seeded.sqlite"), home: home) as? [String: Any]
        #expect(Self.keys(seeded) == ["path", "seed", "elapsedSeconds", "counts"])
        #expect(Self.keys(seeded?["counts"]) == ["users", "gameAccounts", "transactions", "orders", "grants", "subscriptions", "restoreRequests"])

        let simulated = try Self.json(["simulate", "--seconds", "2", "--rate", "2"], db: db, home: home) as? [String: Any]
        #expect(Self.keys(simulated) == ["path", "run", "took_over_from", "seconds", "rate", "seed", "faults", "storekit_settings", "summary"])
        let summary = Self.keys(simulated?["summary"])
        #expect(summary.isSuperset(of: [
            "attempts", "requests_refused", "purchases_refused", "states", "finished", "callbacks_accepted", "callbacks_rejected",
            "callbacks_duplicate", "callbacks_dropped", "callbacks_unanswered", "grants", "dropped_orders", "awaiting_callback",
            "events", "resumed",
        ]))

        let login = try Self.json(["login", "as", "10000024"] + Self.support, db: db, home: home)
        #expect(Self.keys(login) == ["userId", "appleIds", "opened", "players"])

        let set = try Self.json(["apps", "set", "1001", "--grace-days", "16"] + Self.developer, db: db, home: home) as? [String: Any]
        #expect(Self.keys(set) == ["app", "changed", "changes"])
        #expect(Self.keys(set?["app"]) == Self.app)

        let entries = try Self.json(["login", "entries", "set", "--app", "1001", "--entries", "apple,guest"] + Self.developer, db: db, home: home)
        #expect(Self.keys(entries) == ["app", "changed", "old", "new", "valid", "violations"])

        let step = try Self.json(["login", "onetap", "advance", "5"] + Self.developer, db: db, home: home)
        #expect(Self.keys(step) == [
            "step", "code", "carrier_text", "meaning", "detail", "at", "masked_number", "token", "open_id", "expires_at", "terms",
        ])

        let notifications = Binary.repository.appendingPathComponent("Data/Demo/notifications.jsonl").path
        let imported = try Self.json(["events", "import", notifications], db: db, home: home) as? [String: Any]
        #expect(Self.keys(imported) == [
            "file", "store", "lines", "imported", "skipped", "rejected", "provenance", "usersCreatedCount", "usersCreated",
            "subscriptionsWritten",
        ])
        #expect(Self.keys(Self.first(imported?["lines"])) == [
            "line", "outcome", "reason", "notificationUUID", "originalTransactionId", "userId",
        ])
    }

    @Test func configShowKeepsTheREADMEShape() throws {
        let home = TemporaryHome()
        let config = try Self.json(["config", "show"], db: nil, home: home) as? [String: Any]
        #expect(Self.keys(config) == ["file", "actor", "role", "theme", "store"])
        #expect(Self.keys(config?["file"]) == ["path", "status", "problem"])
        for key in ["actor", "role", "theme", "store"] { #expect(Self.keys(config?[key]) == ["value", "source"]) }
    }
}
