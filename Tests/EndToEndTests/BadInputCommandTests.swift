import Foundation
import Testing

/// Bad input from an adversarial run, on the real binary: each case below failed
/// before (a store changed by a command that failed, a `check` that said clean, a device replaced by
/// `seed`, a trap or a hang, a filter that cost the square of its length, stored text that added lines).
@Suite(.serialized) struct BadInputCommandTests {
    static func quote(_ text: String) -> String { RestoreCommandTests.quote(text) }
    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }
    static func demoStore(_ home: TemporaryHome, _ name: String = "demo.sqlite") throws -> String {
        try HardeningTests.demoStore(home, name)
    }
    static func expectOneLineError(
        _ result: Binary.Result, naming: String? = nil, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        HardeningTests.expectOneLineError(result, naming: naming, what, sourceLocation: sourceLocation)
    }

    /// The store's bytes and which of its `-wal`, `-shm` and `-journal` files exist.
    static func fingerprint(_ path: String) throws -> String {
        let sum = try shell("sha256sum \(quote(path))").output.prefix(64)
        let sidecars = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
        return sum + " " + sidecars.joined(separator: ",")
    }

    /// Runs a script of SQL on the store with the sqlite3 shell, checking it worked.
    static func edit(_ path: String, _ script: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try shell("sqlite3 \(quote(path)) \(quote(script))")
        #expect(result.status == 0, "\(script): \(result.output)", sourceLocation: sourceLocation)
    }

    /// The `user` table rebuilt as a hand edit leaves it: without its CHECK constraints, and without the
    /// columns in `dropping`.
    static func rebuildUserTable(_ path: String, dropping: Set<String> = []) throws {
        let all = ["id", "name", "friendly_name", "id_card", "phone", "site", "adult_type", "fcm", "authoriz_state", "safety", "client_id", "created_at"]
        let kept = all.filter { !dropping.contains($0) }.joined(separator: ", ")
        try edit(
            path,
            """
            PRAGMA foreign_keys = OFF; BEGIN;
            CREATE TABLE user_copy AS SELECT rowid AS old_rowid, \(kept) FROM user; DROP TABLE user;
            CREATE TABLE user AS SELECT \(kept) FROM user_copy WHERE 0;
            INSERT INTO user (rowid, \(kept)) SELECT old_rowid, \(kept) FROM user_copy; DROP TABLE user_copy;
            CREATE UNIQUE INDEX user_id_key ON user(id); COMMIT;
            """)
    }

    // MARK: - A failed command leaves the store byte for byte

    @Test func simulateOnAStoreWithoutItsGrantTableChangesNothing() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        try Self.edit(store, "PRAGMA foreign_keys = OFF; DROP TABLE item_grant;")
        let before = try Self.fingerprint(store)
        let runs = try Self.sql(store, "SELECT COUNT(*) FROM payment_run")
        let result = try Binary.run(["simulate", "--seconds", "2", "--rate", "5", "--db", store], home: home)
        Self.expectOneLineError(result, naming: store, "simulate without item_grant")
        #expect(result.stderr.contains("item_grant"), "\(result.stderr)")
        #expect(try Self.fingerprint(store) == before)
        #expect(try Self.sql(store, "SELECT COUNT(*) FROM payment_run") == runs)
        // The other writers are refused the same way, before anything is written.
        for arguments in [
            ["restore", "decline", "t-none", "--reason", "x", "--role", "support"], ["apps", "set", "1001", "--grace-days", "3", "--role", "developer"],
        ] {
            let refused = try Binary.run(arguments + ["--db", store], home: home, environment: ["USER": "tester"])
            Self.expectOneLineError(refused, naming: store, "\(arguments)")
            #expect(try Self.fingerprint(store) == before, "\(arguments)")
        }
    }

    @Test func aStoreWithAGarbageClockIsRefusedWithoutAByteChanged() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        try Self.edit(store, "UPDATE store_meta SET value = 'garbage-clock' WHERE key = 'clock';")
        // Once as the file is, once in WAL mode (as a console leaves it), where a careless read makes -wal and -shm.
        for mode in ["delete", "wal"] {
            try Self.edit(store, "PRAGMA journal_mode = \(mode);")
            let before = try Self.fingerprint(store)
            let snapshot = try Binary.run(["snapshot", "--db", store], home: home)
            Self.expectOneLineError(snapshot, naming: "garbage-clock", "snapshot (\(mode))")
            #expect(try Self.fingerprint(store) == before, "snapshot (\(mode))")
            // The console, in a terminal of its own (`script` gives it one), refuses before it draws.
            let console = try shell(
                "script -qec \(Self.quote(RestoreCommandTests.commandLine(["--db", store], home: home) + " 2>&1; echo EXIT=$?")) /dev/null")
            #expect(console.output.contains("garbage-clock") && console.output.contains("EXIT=1"), "console (\(mode)): \(console.output)")
            #expect(try Self.fingerprint(store) == before, "console (\(mode))")
        }
    }

    // MARK: - check finds what other commands call damaged

    @Test func checkFindsAValueAReadRefuses() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        try Self.rebuildUserTable(store)
        #expect(try Binary.run(["check", "--db", store], home: home).status == 0)
        try Self.edit(store, "UPDATE user SET site = 'x' WHERE id = '10000001';")
        let show = try Binary.run(["user", "show", "10000001", "--db", store], home: home)
        Self.expectOneLineError(show, naming: "check", "user show on site 'x'")
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stdout.contains("value_unreadable: user '10000001': site 'x' is not a whole number"), "\(check.stdout)")
        // A date that is no number, which `user show` calls damaged too.
        try Self.edit(store, "UPDATE user SET created_at = 'abc' WHERE id = '10000002';")
        Self.expectOneLineError(try Binary.run(["user", "show", "10000002", "--db", store], home: home), naming: "check", "created_at 'abc'")
        #expect(try Binary.run(["check", "--db", store], home: home).stdout.contains("value_unreadable: user '10000002': created_at 'abc' is not a whole number"))
        // A JSON list that is no list of login entries: before, `login entries show` printed a decoder's message.
        try Self.edit(store, "UPDATE login_entry_configuration SET entries = 'not json' WHERE app_id = '1001';")
        let entries = try Binary.run(["login", "entries", "show", "--app", "1001", "--db", store], home: home)
        Self.expectOneLineError(entries, naming: "is damaged: a value in table login_entry_configuration", "entries 'not json'")
        #expect(try Binary.run(["check", "--db", store], home: home).stdout.contains("value_unreadable: login_entry_configuration '1001': entries 'not json'"))
        let json = try Binary.run(["check", "--json", "--db", store], home: home)
        #expect(json.stdout.contains("\"kind\" : \"value_unreadable\"") && json.stdout.contains("\"subject\" : \"10000001\""), "\(json.stdout)")
    }

    @Test func checkFindsADroppedColumnAndTable() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        try Self.rebuildUserTable(store, dropping: ["phone"])
        try Self.edit(store, "PRAGMA foreign_keys = OFF; DROP TABLE login_entry_history;")
        let show = try Binary.run(["user", "show", "10000001", "--db", store], home: home)
        Self.expectOneLineError(show, naming: "check", "user show without user.phone")
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 1)
        #expect(check.stdout.contains("schema_column_missing: table user has no column phone"), "\(check.stdout)")
        #expect(check.stdout.contains("schema_table_missing: table login_entry_history is missing"), "\(check.stdout)")
    }

    // MARK: - Paths that are no store file

    @Test func pathsThatAreNoStoreFileAreRefusedByEveryCommand() throws {
        let home = TemporaryHome()
        let fifo = home.path("fifo.sqlite"), loop = home.path("loop.sqlite"), dangling = home.path("dangling.sqlite")
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(symlink(loop, loop) == 0)
        #expect(symlink(home.path("nowhere/none.sqlite"), dangling) == 0)
        var cases: [(path: String, kind: String)] = [(fifo, "a fifo"), (loop, "a symbolic link loop"), (dangling, "a dangling symbolic link")]
        // A character device of the test's own, never the machine's /dev/null: a `seed --force` that
        // replaced devices (as it did) must only ever replace this one (1, 3: the null device). Making one takes root.
        let device = home.path("null.sqlite")
        if mknod(device, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 { cases.insert((device, "a character device"), at: 0) }
        for (path, kind) in cases {
            for arguments in [
                ["seed", "--users", "10"], ["seed", "--users", "10", "--force"], ["check"], ["user", "show", "10000001"],
                ["simulate", "--seconds", "1"], ["snapshot"], ["audit"], ["apps", "list"], ["restore", "list"],
            ] {
                let result = try Binary.run(arguments + ["--db", path], home: home, timeout: 30)
                Self.expectOneLineError(result, naming: path, "\(arguments) on \(kind)")
                #expect(result.stderr.contains(kind), "\(arguments) on \(kind): \(result.stderr)")
            }
        }
        // Each is still what it was.
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(loop, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(lstat(dangling, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(!FileManager.default.fileExists(atPath: home.path("nowhere")))
        if cases.count == 4 { #expect(lstat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR) }
    }

    @Test func seedForceThroughASymbolicLinkReplacesTheFileItLeadsToAndKeepsTheLink() throws {
        let home = TemporaryHome()
        let stores = home.url.appendingPathComponent("stores"), links = home.url.appendingPathComponent("links")
        try FileManager.default.createDirectory(at: stores, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        let target = stores.appendingPathComponent("real.sqlite").path
        #expect(try Binary.run(["seed", "--users", "5", "--db", target], home: home).status == 0)
        // A relative link in another folder, and a link to that link.
        let link = links.appendingPathComponent("store.sqlite").path, chain = home.path("chain.sqlite")
        #expect(symlink("../stores/real.sqlite", link) == 0)
        #expect(symlink(link, chain) == 0)
        func users(_ path: String) throws -> String { try Self.sql(path, "SELECT COUNT(*) FROM user") }
        func isLink(_ path: String, to expected: String) -> Bool {
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return false }
            return (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == expected
        }
        // Without --force the link's file is an existing store: refused, naming the path given.
        let refused = try Binary.run(["seed", "--users", "7", "--db", link], home: home)
        Self.expectOneLineError(refused, naming: link, "seed over a link without --force")
        #expect(try users(target) == "5")
        for (path, count) in [(link, "12"), (chain, "9")] {
            let result = try Binary.run(["seed", "--users", count, "--force", "--db", path], home: home)
            #expect(result.status == 0, "\(path): \(result.stderr)")
            #expect(isLink(link, to: "../stores/real.sqlite") && isLink(chain, to: link), "the links stay links")
            var info = stat()
            #expect(lstat(target, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
            #expect(try users(target) == count, "the file the link leads to was replaced")
            #expect(try users(path) == count)
        }
        // Nothing left beside either: no half-built file, no -wal or -shm.
        #expect(try FileManager.default.contentsOfDirectory(atPath: stores.path).sorted() == ["real.sqlite"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: links.path).sorted() == ["store.sqlite"])
        // Dangling links and loops are still refused, and stay what they were.
        let loop = home.path("loop.sqlite"), dangling = links.appendingPathComponent("dangling.sqlite").path
        #expect(symlink(loop, loop) == 0)
        #expect(symlink("../stores/none.sqlite", dangling) == 0)
        for (path, kind) in [(loop, "a symbolic link loop"), (dangling, "a dangling symbolic link")] {
            let result = try Binary.run(["seed", "--users", "3", "--force", "--db", path], home: home)
            Self.expectOneLineError(result, naming: path, "seed --force on \(kind)")
            #expect(result.stderr.contains(kind), "\(result.stderr)")
        }
        #expect(isLink(loop, to: loop) && isLink(dangling, to: "../stores/none.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: stores.appendingPathComponent("none.sqlite").path))
    }

    // MARK: - Numbers bounded before use

    @Test func numericOptionsAreBoundedAndNamed() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let trap = try Binary.run(["bench", "import", "--notifications", "100000000000"], home: home, timeout: 30)
        Self.expectOneLineError(trap, naming: "--notifications must be from 5 to 10000000, got 100000000000", "bench import")
        let hang = try Binary.run(["simulate", "--speed", "4.9e-324", "--db", store], home: home, timeout: 30)
        Self.expectOneLineError(hang, naming: "--speed must be 0 (as fast as possible) or from 0.01", "simulate --speed 4.9e-324")
        #expect(hang.stderr.contains("got 5e-324"), "\(hang.stderr)")

        // A negative number after an option is its value, refused by the option's own rule.
        for (arguments, named) in [
            (["seed", "--users", "-1", "--db", home.path("new.sqlite")], "--users must be from 0 to 10000000 (ten million), got -1"),
            (["audit", "--limit", "-5", "--db", store], "--limit must be above 0, got -5"),
            (["simulate", "--seconds", "-1", "--db", store], "--seconds must be from 1"),
            (["simulate", "--rate", "-0.5", "--speed", "-2", "--db", store], "--rate must be above 0"),
            (["console", "--refresh", "-1", "--db", store], "--refresh must be between 0 and 3600 seconds, got -1"),
            (["login", "onetap", "settings", "--latency", "-3", "--db", store], "--latency must be 0 or more milliseconds, got -3"),
            (["login", "onetap", "settings", "--timeout", "3600001", "--db", store], "--timeout must be at most 3600000 milliseconds (an hour), got 3600001"),
        ] {
            let result = try Binary.run(arguments, home: home, timeout: 30)
            Self.expectOneLineError(result, naming: named, "\(arguments)")
            #expect(!result.stderr.contains("Missing value"), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.path("new.sqlite")))

        // Every numeric option at the edges of its type: an answer (or a one-line refusal), never a trap or a hang.
        let huge = "9223372036854775807", tooBig = "99999999999999999999", tiny = "-9223372036854775808"
        var lines: [[String]] = []
        for value in [huge, tooBig, tiny, "0", "nan", "inf", "1e308"] {
            lines += [
                ["audit", "--limit", value], ["restore", "list", "--limit", value], ["user", "search", "a", "--limit", value],
                ["queue", "list", "--limit", value], ["simulate", "--seconds", value], ["simulate", "--rate", value],
                ["simulate", "--speed", value], ["simulate", "--concurrency", value], ["simulate", "--timeout", value],
                ["seed", "--users", value, "--db", home.path("seed-\(lines.count).sqlite")], ["console", "--refresh", value],
                ["bench", "import", "--users", value], ["bench", "import", "--small", value], ["bench", "queue", "--transactions", value],
                ["bench", "queue", "--batch", value], ["serve", "--max-body", value], ["serve", "--read-timeout", value],
                ["serve", "--idle-timeout", value], ["events", "simulate", "10000004", "--for", value, "--role", "developer"],
                ["login", "onetap", "settings", "--latency", value], ["login", "onetap", "settings", "--timeout", value],
                ["login", "onetap", "advance", value], ["callback", "check", "1001", "--timeout", value],
            ]
        }
        // `bench import --users 0` is a whole benchmark run, not a bad value.
        for arguments in lines where arguments != ["bench", "import", "--users", "0"] {
            let withStore = arguments.contains("--db") || arguments.first == "bench" ? arguments : arguments + ["--db", store]
            let result = try Binary.run(withStore, home: home, environment: ["USER": "tester"], timeout: 20)
            #expect(result.status >= 0 && result.status < 128, "\(arguments): exit \(result.status) \(result.stderr)")
            if result.status != 0 { Self.expectOneLineError(result, "\(arguments)") }
        }
    }

    // MARK: - Filters cost in proportion to their length

    @Test func aLongFilterIsOneStep() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let filter = String(repeating: "张伟abc", count: 3_200)
        let started = Date()
        let result = try Binary.run(["snapshot", "--db", store, "--screen", "users", "--filter", filter, "--size", "120x30"], home: home, timeout: 60)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("张伟abc张伟abc"), "\(result.stdout)")
        // A filter that matches one user still finds it in a snapshot.
        let found = try Binary.run(["snapshot", "--db", store, "--screen", "users", "--filter", "10000001"], home: home)
        #expect(found.status == 0 && found.stdout.contains("10000001"), "\(found.stdout)")
        print("snapshot --filter of \(filter.count) characters: \(String(format: "%.2f", seconds)) s")
    }

    // MARK: - Stored text stays on its line

    @Test func storedTextAddsNoLineToAnyReport() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let env = ["USER": "tester"]
        let commands: [[String]] = [
            ["user", "show", "10000001"], ["subs", "10000004"], ["restore", "list", "--status", "all"], ["apps", "list"], ["apps", "show", "1001"],
            ["catalog", "show", "--app", "1001"], ["login", "entries", "show", "--app", "1001"], ["user", "search", "10000001"],
        ]
        func lineCounts() throws -> [Int] {
            try commands.map { arguments in
                let result = try Binary.run(arguments + ["--db", store], home: home, environment: env)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B || $0.value == 0x202E || $0.value == 0x0D },
                        "\(arguments): \(result.stdout)")
                return result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count
            }
        }
        let before = try lineCounts()
        let hostile = "\n\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m\u{202E}evil\r\nX"
        try Self.edit(
            store,
            """
            UPDATE user SET name = name || \(Self.sqlText(hostile)), friendly_name = \(Self.sqlText(hostile));
            UPDATE app SET name = name || \(Self.sqlText(hostile));
            UPDATE game_account SET role_name = role_name || \(Self.sqlText(hostile));
            UPDATE product SET name = name || \(Self.sqlText(hostile));
            """)
        #expect(try lineCounts() == before)

        // `check` shows a hostile value in its finding on one line too.
        try Self.rebuildUserTable(store)
        try Self.edit(store, "UPDATE user SET site = \(Self.sqlText(hostile)) WHERE id = '10000001';")
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 1)
        #expect(check.stdout.split(separator: "\n").count == 2, "\(check.stdout)")
        #expect(!check.stdout.contains("\u{1B}") && check.stdout.contains("\\e]0;PWNED"), "\(check.stdout)")
    }

    @Test func eventsImportEchoesARejectedIdEscaped() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let hostile = "com.x\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{9B}31m\u{85}\u{202E}evil\r\nX"
        let quoted = String(decoding: try JSONEncoder().encode(hostile), as: UTF8.self)
        let line = SubscriptionCommandTests.notification(
            uuid: "bad-input-1", original: "2000000900000001", signed: "2026-11-20T07:30:00Z", expires: "2026-12-20T07:30:00Z"
        ).replacingOccurrences(of: "\"com.storedesk.starvoyage.vip.monthly\"", with: quoted)
        #expect(line.contains("PWNED"))
        let file = home.path("hostile.jsonl")
        try (line + "\n" + line + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        for json in [false, true] {
            let result = try Binary.run(["events", "import", file, "--db", store] + (json ? ["--json"] : []), home: home)
            for text in [result.stdout, result.stderr] {
                #expect(!text.unicodeScalars.contains { [0x1B, 0x9B, 0x85, 0x202E, 0x0D, 0x07].contains($0.value) }, "json \(json): \(text.debugDescription)")
            }
            if !json {
                #expect(result.stderr.contains("hostile.jsonl:1: unknown product 'com.x\\e]0;PWNED\\a\\e[2J\\u{9B}31m\\u{85}\\u{202E}evil\\r\\nX'"),
                        "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("storedesk: ") }, "\(result.stderr)")
            }
        }
    }

    /// Text as an SQL expression, its control characters as `char(N)` (the sqlite3 shell takes no escapes).
    static func sqlText(_ text: String) -> String {
        var pieces: [String] = []
        var literal = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x2028...0x206F).contains(scalar.value) {
                if !literal.isEmpty { pieces.append("'" + literal.replacingOccurrences(of: "'", with: "''") + "'") }
                literal = ""
                pieces.append("char(\(scalar.value))")
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
        if !literal.isEmpty { pieces.append("'" + literal.replacingOccurrences(of: "'", with: "''") + "'") }
        return "(" + pieces.joined(separator: " || ") + ")"
    }
}
