import Foundation
import Testing

/// The restore desk through the real binary, run with `shell` (a file, not a pipe, for the output).
@Suite struct RestoreCommandTests {
    static func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// The command line for the binary with a private HOME, stdout to `out` and stderr to `err` when given.
    static func commandLine(_ arguments: [String], home: TemporaryHome) -> String {
        let environment = [
            "HOME=" + home.url.path, "XDG_DATA_HOME=" + home.path("data"), "XDG_CONFIG_HOME=" + home.path("config"),
            "LANG=C.UTF-8", "TZ=UTC", "USER=tester",
        ]
        return "env " + (environment + [Binary.path] + arguments).map(quote).joined(separator: " ")
    }

    /// Runs the binary; stdout and stderr apart.
    static func run(_ arguments: [String], home: TemporaryHome) throws -> Binary.Result {
        let err = home.path("stderr-" + UUID().uuidString)
        defer { try? FileManager.default.removeItem(atPath: err) }
        let (status, out) = try shell(commandLine(arguments, home: home) + " 2>" + quote(err))
        return Binary.Result(status: status, stdout: out, stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }

    static func json(_ result: Binary.Result) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    static func sql(_ path: String, _ query: String) throws -> String {
        try shell("sqlite3 \(quote(path)) \(quote(query))").output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A copy of the demo store at a path of its own.
    static func demoStore(_ home: TemporaryHome) throws -> String {
        #expect(try run(["check"], home: home).status == 0)
        let path = home.path("demo.sqlite")
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: path)
        return path
    }

    static let support = ["--role", "support", "--as", "li.support"]

    @Test func theWholePathFromAClientCrashToAGrantedRestore() throws {
        let home = TemporaryHome()
        let db = try Self.demoStore(home)
        // A simulation in which every client crashes after paying: paid, unfinished, no order, no grant.
        let simulated = try Self.run(
            ["simulate", "--seconds", "30", "--rate", "10", "--seed", "4", "--fault", "clientCrash:1", "--json", "--db", db],
            home: home)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let summary = (try Self.json(simulated) as? [String: Any])?["summary"] as? [String: Any] ?? [:]
        #expect((summary["dropped_orders"] as? Int ?? 0) > 20)
        #expect(summary["grants"] as? Int == 0)
        // Players who bought again logged in: their dropped orders are prompts.
        let listed = try Self.run(["restore", "list", "--json", "--db", db], home: home)
        let prompts = (try Self.json(listed) as? [[String: Any]] ?? []).filter {
            ($0["transactionIdentifier"] as? String)?.hasPrefix("sim") == true
        }
        #expect(prompts.count > 10)
        let prompt = try #require(prompts.first)
        for key in ["transactionIdentifier", "productId", "quantity", "userId", "status", "candidates", "ownership", "ownershipRule"] {
            #expect(prompt[key] != nil, "missing \(key)")
        }
        #expect(prompt["status"] as? String == "open")
        let id = try #require(prompt["transactionIdentifier"] as? String)
        let payer = try #require(prompt["payingAccount"] as? [String: Any])
        let target = ["--account", payer["userId"] as? String ?? "", "--sid", payer["sid"] as? String ?? "",
                      "--role-id", payer["roleId"] as? String ?? ""]
        #expect(try Self.sql(db, "SELECT COUNT(*) FROM payment_order WHERE transaction_id = '\(id)'") == "0")
        // Support confirms it onto the account that paid.
        let confirmed = try Self.run(["restore", "confirm", id] + target + Self.support + ["--json", "--db", db], home: home)
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        let result = try Self.json(confirmed) as? [String: Any] ?? [:]
        #expect(result["status"] as? String == "confirmed" && result["resolvedBy"] as? String == "li.support")
        let delivery = result["delivery"] as? [String: Any] ?? [:]
        #expect((delivery["callback"] as? [String: Any])?["reply"] as? String == "success")
        #expect((delivery["grant"] as? [String: Any])?["source"] as? String == "restore")
        let grants = "SELECT COUNT(*) FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id WHERE o.transaction_id = '\(id)'"
        #expect(try Self.sql(db, grants) == "1")
        #expect(try Self.sql(db, "SELECT finished FROM store_transaction WHERE id = '\(id)'") == "1")
        let timeline = try Self.sql(db, "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM transaction_event WHERE transaction_id = '\(id)' ORDER BY id)")
        #expect(timeline.hasSuffix("client_crashed restore_prompted restore_confirmed order_created callback_accepted granted finished"))
        #expect(try Self.run(["check", "--db", db], home: home).status == 0)
        // A second confirm is refused with who restored it and when; nothing more is granted.
        let again = try Self.run(
            ["restore", "confirm", id] + target + ["--role", "developer", "--as", "zhao.dev", "--db", db], home: home)
        #expect(again.status == 1)
        #expect(again.stderr.hasPrefix("storedesk: transaction \(id) was already restored by li.support (support) at 20"))
        #expect(again.stderr.filter { $0 == "\n" }.count == 1 && again.stdout.isEmpty)
        #expect(try Self.sql(db, grants) == "1")
        let audit = try Self.run(["audit", "--json", "--action", "restore", "--actor", "li.support", "--db", db], home: home)
        let entries = try Self.json(audit) as? [[String: Any]] ?? []
        #expect(entries.first?["action"] as? String == "restore.confirm")
        #expect(entries.first?["subject"] as? String == "transaction \(id)")
    }

    @Test func twoProcessesConfirmingOnePromptGrantItOnceEveryTime() throws {
        let home = TemporaryHome()
        let db = try Self.demoStore(home)
        let simulated = try Self.run(
            ["simulate", "--seconds", "60", "--rate", "10", "--seed", "9", "--fault", "clientCrash:1", "--db", db], home: home)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let prompts = try Self.sql(
            db,
            "SELECT r.transaction_id || ' ' || t.user_id || ' ' || t.sid || ' ' || t.role_id FROM restore_request r "
                + "JOIN store_transaction t ON t.id = r.transaction_id WHERE r.status = 'open' AND r.transaction_id LIKE 'sim%' "
                + "ORDER BY r.id LIMIT 25"
        ).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(prompts.count == 25)
        for prompt in prompts {
            let (id, user, sid, role) = (prompt[0], prompt[1], prompt[2], prompt[3])
            func racer(_ name: String) -> String {
                let line = Self.commandLine(
                    ["restore", "confirm", id, "--account", user, "--sid", sid, "--role-id", role, "--role", "support",
                     "--as", name, "--db", db], home: home)
                let file = Self.quote(home.path(name))
                return "(" + line + " >\(file).out 2>\(file).err; echo $? >\(file).status)"
            }
            try shell(racer("racer-a") + " & " + racer("racer-b") + " & wait")
            let read = { (name: String) in
                (try? String(contentsOfFile: home.path(name), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            }
            let statuses = [read("racer-a.status"), read("racer-b.status")]
            #expect(statuses.sorted() == ["0", "1"], "\(id): \(statuses) \(read("racer-a.err")) \(read("racer-b.err"))")
            let loser = statuses[0] == "1" ? "racer-a" : "racer-b"
            let winner = loser == "racer-a" ? "racer-b" : "racer-a"
            #expect(read(loser + ".err").hasPrefix("storedesk: transaction \(id) was already restored by \(winner) (support) at "))
            let grants = "SELECT COUNT(*) FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id WHERE o.transaction_id = '\(id)'"
            #expect(try Self.sql(db, grants) == "1", "\(id)")
            #expect(try Self.sql(db, "SELECT resolved_by FROM restore_request WHERE transaction_id = '\(id)'") == winner)
        }
        #expect(try Self.run(["check", "--db", db], home: home).status == 0)
    }

    @Test func eachOwnershipRuleDecidesWhatAConfirmOntoAnotherAccountDoes() throws {
        let home = TemporaryHome()
        let db = try Self.demoStore(home)
        func confirm(_ id: String, _ account: String, _ sid: String, _ role: String) throws -> Binary.Result {
            try Self.run(
                ["restore", "confirm", id, "--account", account, "--sid", sid, "--role-id", role, "--json", "--db", db]
                    + Self.support, home: home)
        }
        func owners(_ result: Binary.Result) throws -> [String] {
            let prompt = try Self.json(result) as? [String: Any] ?? [:]
            return (prompt["currentOwners"] as? [[String: Any]] ?? []).map { "\($0["userId"] ?? "") \($0["roleId"] ?? "")" }
        }
        // transfer (星海征途): 10000010's dropped order comes back at login and moves to the second role.
        let login = try Self.run(["login", "as", "10000010", "--json", "--db", db] + Self.support, home: home)
        let players = (try Self.json(login) as? [String: Any])?["players"] as? [[String: Any]] ?? []
        let prompt = (players.first?["prompts"] as? [[String: Any]])?.first ?? [:]
        #expect(prompt["ownership"] as? String == "transfer" && prompt["opened"] as? Bool == true)
        #expect((prompt["ownershipRule"] as? String)?.hasPrefix("transfer: 星海征途 moves the purchase") == true)
        let transferred = try confirm("2000000100000098", "10000010", "s3", "r10000010-2")
        #expect(transferred.status == 0, "\(transferred.stderr)")
        #expect(try owners(transferred) == ["10000010 r10000010-2"])
        // keep (Pocket Garden): another player on the family Apple ID is refused; the payer is not.
        let refused = try confirm("2000000100000093", "10000023", "s1", "r10000023-1")
        #expect(refused.status == 1)
        #expect(refused.stderr == "storedesk: Pocket Garden keeps purchases with the account that paid (10000024 s1/r10000024-1): restoring onto 10000023 s1/r10000023-1 is refused (ownership: keep)\n")
        let kept = try confirm("2000000100000093", "10000024", "s1", "r10000024-1")
        #expect(try owners(kept) == ["10000024 r10000024-1"])
        // share (龙脉): the second role gets it and the payer keeps it.
        let shared = try confirm("2000000100000096", "10000035", "s2", "r10000035-2")
        #expect(try owners(shared) == ["10000035 r10000035-1", "10000035 r10000035-2"])
        // Restore purchases: past non-consumables and subscriptions unlock as each rule allows, no new charge.
        func restore(_ account: String, _ sid: String, _ role: String) throws -> [String] {
            let result = try Self.run(
                ["restore", "purchases", "--account", account, "--sid", sid, "--role-id", role, "--json", "--db", db]
                    + Self.support, home: home)
            #expect(result.status == 0, "\(result.stderr)")
            let items = (try Self.json(result) as? [String: Any])?["items"] as? [[String: Any]] ?? []
            return items.map { "\($0["productId"] ?? "") \($0["outcome"] ?? "")" }
        }
        #expect(try restore("10000001", "s7", "r10000001-2") == ["com.storedesk.starvoyage.vip.monthly restored"])
        #expect(try restore("10000024", "s1", "r10000024-1") == [
            "com.storedesk.pocketgarden.removeads kept_with_owner", "com.storedesk.pocketgarden.plus.bimonthly kept_with_owner",
        ])
        #expect(try restore("10000026", "s5", "r10000026-2") == [
            "com.storedesk.dragonatlas.codex restored", "com.storedesk.dragonatlas.guild.weekly refused",
        ])
        // Their orders are numbers from the restore desk's block, like every platform order id.
        let restoredOrders = "SELECT group_concat(order_id, ' ') FROM payment_order WHERE transaction_id LIKE '%-R%' AND amount_cents = 0"
        #expect(try Self.sql(db, restoredOrders).split(separator: " ").allSatisfy { Int64($0).map { $0 > 10_000_000_000 } == true })
        #expect(try Self.sql(db, "SELECT COUNT(*) FROM payment_order WHERE transaction_id LIKE '%-R%' AND amount_cents = 0") == "2")
        #expect(try Self.run(["check", "--db", db], home: home).status == 0)
    }

    @Test func operatorsAreRefusedSupportAndDevelopersActReadonlyWritesNothing() throws {
        let home = TemporaryHome()
        let db = try Self.demoStore(home)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let confirm = ["restore", "confirm", "2000000100000095", "--account", "10000006", "--sid", "s4", "--role-id", "r10000006-1", "--db", db]
        let refusals: [([String], String)] = [
            (confirm, "storedesk: restores need the support or developer role; tester is operator, who may only look\n"),
            (confirm + ["--role", "operator", "--as", "chen.ops"], "storedesk: restores need the support or developer role; chen.ops is operator, who may only look\n"),
            (confirm + ["--role", "support", "--readonly"], "storedesk: --readonly: `storedesk restore confirm` writes the store, so nothing was done\n"),
            (["restore", "decline", "2000000100000093", "--reason", "no", "--db", db], "storedesk: restores need the support or developer role; tester is operator, who may only look\n"),
            (["login", "as", "10000010", "--db", db], "storedesk: restores need the support or developer role; tester is operator, who may only look\n"),
            (["login", "as", "10000010", "--db", db, "--role", "developer", "--readonly"], "storedesk: --readonly: `storedesk login as` writes the store, so nothing was done\n"),
        ]
        for (arguments, message) in refusals {
            let result = try Self.run(arguments, home: home)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == message)
        }
        // A role or status the option does not take: the parser's one line, the usage status.
        for (arguments, prefix) in [
            (confirm + ["--role", "auditor"],
             "storedesk: The value 'auditor' is invalid for '--role <role>'. Please provide one of 'operator', 'support' or 'developer'."),
            (["restore", "list", "--status", "pending", "--db", db],
             "storedesk: The value 'pending' is invalid for '--status <status>'. Please provide one of 'open', 'confirmed', 'declined' or 'all'."),
        ] {
            let result = try Self.run(arguments, home: home)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix(prefix) && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        // An operator still sees the prompts.
        #expect(try (Self.json(try Self.run(["restore", "list", "--json", "--db", db], home: home)) as? [Any])?.count == 3)
        // Support declines, a developer confirms.
        let declined = try Self.run(
            ["restore", "decline", "2000000100000093", "--reason", "refunded by Apple; player told", "--db", db] + Self.support,
            home: home)
        #expect(declined.status == 0 && declined.stdout == "declined transaction 2000000100000093: refunded by Apple; player told\n")
        let confirmed = try Self.run(confirm + ["--role", "developer", "--as", "zhao.dev"], home: home)
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(confirmed.stdout.hasPrefix("restored transaction 2000000100000095 onto 10000006 s4/r10000006-1 (the paying account)"))
        let audit = try Self.run(["audit", "--action", "restore", "--db", db], home: home)
        let lines = audit.stdout.split(separator: "\n")
        #expect(lines.first?.contains("zhao.dev (developer)  restore.confirm  transaction 2000000100000095") == true)
        #expect(lines.dropFirst().first?.contains("li.support (support)  restore.decline  transaction 2000000100000093  refunded by Apple; player told") == true)
        let statuses = try Self.run(["restore", "list", "--status", "all", "--json", "--db", db], home: home)
        let all = try Self.json(statuses) as? [[String: Any]] ?? []
        #expect(all.map { $0["status"] as? String ?? "" }.sorted() == ["confirmed", "confirmed", "declined", "declined", "open"])
    }

    @Test func badInputsGiveOneLineAndLeaveTheStoreByteForByte() throws {
        let home = TemporaryHome()
        let db = try Self.demoStore(home)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        func confirm(_ id: String, _ account: String, _ sid: String, _ role: String) -> [String] {
            ["restore", "confirm", id, "--account", account, "--sid", sid, "--role-id", role, "--db", db] + Self.support
        }
        let cases: [([String], String)] = [
            (confirm("2000000999999999", "10000024", "s1", "r10000024-1"),
             "storedesk: no restore prompt for transaction '2000000999999999' (a dropped order gets one when its player logs in)\n"),
            (confirm("2000000100000093", "99999999", "s1", "r10000024-1"), "storedesk: no user with id '99999999'\n"),
            (confirm("2000000100000093", "10000001", "s1", "r10000001-1"),
             "storedesk: account 10000001 is not on the Apple ID that paid for transaction 2000000100000093 (apple.family01)\n"),
            (confirm("2000000100000093", "10000024", "s 1/!", "r10000024-1"),
             "storedesk: restoreProduct refused: Sid may contain only letters, digits, '-' and '_'\n"),
            (confirm("2000000100000093", "10000024", "s2", "r10000024-1"),
             "storedesk: account 10000024 has no role r10000024-1 on server s2 in app 1002 (it has s1/r10000024-1)\n"),
            (confirm("2000000100000089", "10000029", "s1", "r10000029-1"),
             "storedesk: transaction 2000000100000089 was already declined by li.support (support) at 2026-11-13T10:20:00Z: Player asked to deliver to a role on another Apple ID; Pocket Garden keeps purchases on the paying account. 玩家已知悉。\n"),
            (["restore", "decline", "2000000100000093", "--reason", " ", "--db", db] + Self.support,
             "storedesk: --reason must not be empty: a decline needs a reason the player can be told\n"),
            (["login", "as", "nobody", "--db", db] + Self.support, "storedesk: no user with id 'nobody'\n"),
            (["restore", "purchases", "--account", "10000024", "--sid", "s1", "--role-id", "r9", "--db", db] + Self.support,
             "storedesk: account 10000024 has no role r9 on server s1 (it has s1/r10000024-1)\n"),
            (["audit", "--limit", "0", "--db", db], "storedesk: --limit must be above 0, got 0\n"),
        ]
        for (arguments, message) in cases {
            let result = try Self.run(arguments, home: home)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr == message)
            #expect(result.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }

    @Test func aLoginBringsBackTheAppleIDsDroppedOrdersGroupedPerPlayerOnce() throws {
        let home = TemporaryHome()
        let db = try Self.demoStore(home)
        // A dropped order of 10000025's, on the family Apple ID with 10000023 and 10000024.
        _ = try Self.sql(
            db,
            "INSERT INTO store_transaction VALUES ('T-25', 'T-25', '10000025', '1002', 'com.storedesk.pocketgarden.coins.600', "
                + "1, 'purchased', NULL, 'Production', 's2', 'r10000025-1', '', '', 1795000000000, NULL, NULL, NULL, 0, NULL)")
        let first = try Self.run(["login", "as", "10000023", "--json", "--db", db] + Self.support, home: home)
        #expect(first.status == 0, "\(first.stderr)")
        let login = try Self.json(first) as? [String: Any] ?? [:]
        #expect(login["appleIds"] as? [String] == ["apple.family01"] && login["opened"] as? Int == 1)
        let players = login["players"] as? [[String: Any]] ?? []
        #expect(players.map { $0["userId"] as? String ?? "" } == ["10000024", "10000025"])
        let opened = players.flatMap { ($0["prompts"] as? [[String: Any]] ?? []).map { "\($0["transactionIdentifier"] ?? "") \($0["opened"] as? Bool == true)" } }
        #expect(opened == ["2000000100000093 false", "T-25 true"])
        let second = try Self.run(["login", "as", "10000025", "--db", db] + Self.support, home: home)
        #expect(second.stdout.hasPrefix("10000025 logged in (Apple ID apple.family01): 0 restore prompts opened, 2 open\n"))
        #expect(try Self.sql(db, "SELECT COUNT(*) FROM restore_request WHERE transaction_id = 'T-25'") == "1")
    }
}
