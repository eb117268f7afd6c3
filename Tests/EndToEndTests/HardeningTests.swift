import Foundation
import Testing

/// Hardening, on the real binary: every repro of a hostile run, each of which failed before
/// (a trap with exit 132, a hang, a store `check` then refused, an escape sequence on the terminal, a
/// body PHP rejected, a store that could not be opened, an error of several lines).
@Suite(.serialized) struct HardeningTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux
    static func quote(_ text: String) -> String { RestoreCommandTests.quote(text) }
    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }

    /// A copy of the demo store.
    static func demoStore(_ home: TemporaryHome, _ name: String = "demo.sqlite") throws -> String {
        let path = home.path(name)
        if !FileManager.default.fileExists(atPath: home.defaultStore) {
            try home.withDemoStore()
        }
        try FileManager.default.copyItem(atPath: home.defaultStore, toPath: path)
        return path
    }

    /// The `user` table rebuilt without its `UNIQUE` key, as a hand edit leaves it.
    static func dropUserKey(_ path: String) throws {
        let columns = "id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at"
        let script = """
            PRAGMA foreign_keys = OFF; BEGIN;
            CREATE TABLE user_copy AS SELECT rowid AS old_rowid, \(columns) FROM user; DROP TABLE user;
            CREATE TABLE user (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, name TEXT NOT NULL, friendly_name TEXT NOT NULL DEFAULT '',
              id_card TEXT NOT NULL DEFAULT '', phone TEXT NOT NULL DEFAULT '', site INTEGER NOT NULL, adult_type INTEGER NOT NULL,
              fcm INTEGER NOT NULL, authoriz_state INTEGER NOT NULL, safety INTEGER NOT NULL, client_id TEXT NOT NULL, created_at INTEGER NOT NULL);
            INSERT INTO user SELECT old_rowid, \(columns) FROM user_copy; DROP TABLE user_copy; COMMIT;
            """
        #expect(try shell("sqlite3 \(quote(path)) \(quote(script))").status == 0)
    }

    /// What the shell in the tmux pane wrote once the console ended (`EXIT=…` and `stty -a`, written to a
    /// `.part` file and moved into place: whole once it is there).
    static func afterExit(_ marker: String, timeout: TimeInterval = 10) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        return (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
    }

    /// One line on stderr, `storedesk: ` first, a non-zero exit that is not a signal's.
    static func expectOneLineError(
        _ result: Binary.Result, naming: String? = nil, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(result.status > 0 && result.status < 128, "\(what): exit \(result.status)", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 && result.stderr.hasSuffix("\n"), "\(what): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("storedesk: "), "\(what): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("while executing") && !result.stderr.contains("\u{1B}"), "\(what): \(result.stderr)", sourceLocation: sourceLocation)
        if let naming { #expect(result.stderr.contains(naming), "\(what) should name \(naming): \(result.stderr)", sourceLocation: sourceLocation) }
    }

    // MARK: - Item 2: traps

    @Test func trapsAreOneLineErrors() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let env = ["USER": "tester"]
        Self.expectOneLineError(
            try Binary.run(["simulate", "--speed", "1e300", "--seconds", "1", "--db", store], home: home), "simulate --speed 1e300")
        #expect(try Binary.run(["simulate", "--speed", "1e300", "--seconds", "1", "--db", store], home: home).stderr.contains("--speed"))

        let nokey = try Self.demoStore(home, "nokey.sqlite")
        try Self.dropUserKey(nokey)
        for arguments in [
            ["subs", "10000001"], ["login", "as", "10000001", "--role", "support"],
            ["restore", "purchases", "--account", "10000001", "--sid", "s1", "--role-id", "r10000001-1", "--role", "support"],
            ["events", "simulate", "10000004", "--role", "developer"], ["simulate", "--seconds", "1", "--rate", "5"],
        ] {
            let result = try Binary.run(arguments + ["--db", nokey], home: home, environment: env)
            // Reads by a column still work on such a store; a write that needs the key fails in one line.
            if result.status != 0 {
                #expect(result.status < 128, "\(arguments): exit \(result.status) \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("storedesk: ") }, "\(arguments): \(result.stderr)")
            }
        }
        // A write that references a player: before, several lines of SQL; now one line naming the store.
        let write = try Binary.run(["simulate", "--seconds", "1", "--rate", "5", "--db", nokey], home: home, environment: env)
        Self.expectOneLineError(write, naming: nokey, "simulate on a store without the user key")
        #expect(write.stderr.contains("foreign key mismatch"))
        // The demo's notifications cannot be stored there: before, one line per notification (exit 2); the
        // store's fault is one line naming it, and the import is rolled back whole.
        let before = try Self.sql(nokey, "SELECT COUNT(*) FROM subscription_event")
        let demo = try Binary.run(["events", "simulate", "10000004", "--role", "developer", "--db", nokey], home: home, environment: env)
        Self.expectOneLineError(demo, naming: nokey, "events simulate on a store without the user key")
        #expect(demo.stderr.contains("foreign key mismatch"))
        #expect(try Self.sql(nokey, "SELECT COUNT(*) FROM subscription_event") == before)
        let check = try Binary.run(["check", "--db", nokey], home: home)
        #expect(check.status == 1)
        #expect(check.stdout.contains("schema_key_missing: table user has no unique key on id"))

        let maxClock = try Self.demoStore(home, "maxclock.sqlite")
        _ = try Self.sql(maxClock, "UPDATE store_meta SET value = '9223372036854775807' WHERE key = 'clock'")
        let simulate = try Binary.run(["events", "simulate", "10000004", "--role", "developer", "--db", maxClock], home: home, environment: env)
        Self.expectOneLineError(simulate, "events simulate at a clock of Int64.max")
        #expect(simulate.stderr.contains("its clock (store_meta 'clock' = '9223372036854775807')"))
        let found = try Binary.run(["check", "--db", maxClock], home: home)
        #expect(found.stdout.contains("store_clock_invalid"))
        // No finding has an empty message (before: `subscription_dates_out_of_order: ` with nothing after).
        for line in found.stdout.split(separator: "\n").dropLast() {
            #expect(!line.hasSuffix(": "), "\(line)")
        }
    }

    /// Before: the console's `5` on a store without the user key trapped and left the terminal raw.
    @Test func theConsoleOnADamagedStoreNeitherTrapsNorLeavesTheTerminalRaw() throws {
        let home = TemporaryHome()
        let nokey = try Self.demoStore(home, "nokey.sqlite")
        try Self.dropUserKey(nokey)
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let marker = home.path("after.txt")
        let command = "env \(env) \(Binary.path) --db \(nokey) --role developer; { echo \"EXIT=$?\"; stty -a; } > \(marker).part; mv \(marker).part \(marker); sleep 30"
        let tmux = try Tmux(width: 120, height: 40, command: command)
        try tmux.waitFor("Profile")
        try tmux.keys("5")
        try tmux.waitFor("Subscriptions ·")
        // Start a demo subscription for a player: the write fails, and says so on the status line.
        try tmux.keys("n")
        try tmux.waitFor("demo subscription:")
        try tmux.keys("C-u")
        try tmux.literal("10000004")
        try tmux.keys("Enter")
        let screen = try tmux.waitFor("foreign key mismatch")
        #expect(screen.contains("nokey.sqlite is damaged: SQLite says: foreign key mismatch"), "\(screen)")
        try tmux.keys("q")
        let after = Self.afterExit(marker)
        #expect(after.hasPrefix("EXIT=0\n"), "\(after)")
        #expect(after.contains(" icanon ") && after.contains(" echo "), "\(after)")
    }

    /// A fault that still happens (here a SIGILL sent from outside, as a trap raises it) gives the
    /// terminal back before the process ends.
    @Test func aFaultInTheConsoleGivesTheTerminalBack() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
        for signal in ["ILL", "SEGV"] {
            let marker = home.path("\(signal).txt")
            let pidFile = home.path("\(signal).pid")
            // Without the runtime's backtracer (it would print a report and wait for a key first).
            let command = "env SWIFT_BACKTRACE=enable=no \(env) sh -c 'echo $$ > \(pidFile); exec \(Binary.path) --readonly' 2>/dev/null; { echo \"EXIT=$?\"; stty -a; } > \(marker).part; mv \(marker).part \(marker); sleep 30"
            let tmux = try Tmux(width: 100, height: 30, command: command)
            try tmux.waitFor("Profile")
            let pid = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            try shell("kill -\(signal) \(pid)")
            let after = Self.afterExit(marker, timeout: 20)
            #expect(after.hasPrefix("EXIT=1"), "\(signal): \(after)")
            #expect(after.contains(" icanon ") && after.contains(" echo "), "\(signal): \(after)")
        }
    }

    // MARK: - Item 3: hangs

    @Test func aFifoIsRefusedAtOnce() throws {
        let home = TemporaryHome()
        let fifo = home.path("pipe.sqlite")
        #expect(mkfifo(fifo, 0o644) == 0)
        for arguments in [["check"], ["user", "show", "10000001"], ["audit"], ["subs", "10000001"], ["snapshot"], ["restore", "list"]] {
            let result = try Binary.run(arguments + ["--db", fifo], home: home, timeout: 20)
            Self.expectOneLineError(result, naming: fifo, "\(arguments) on a fifo")
            #expect(result.stderr.contains("is a fifo (named pipe), not a store file"))
        }
        // The console, in a terminal, says so and ends: before, it waited forever and `q` did nothing.
        let marker = home.path("after.txt")
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8"
        let tmux = try Tmux(width: 250, height: 30, command: "env \(env) \(Binary.path) --db \(fifo); echo \"EXIT=$?\" > \(marker).part; mv \(marker).part \(marker); sleep 30")
        let screen = try tmux.waitFor("not a store file", timeout: 20)
        #expect(screen.contains("pipe.sqlite is a fifo (named pipe)"))
        #expect(Self.afterExit(marker).hasPrefix("EXIT=1"))
    }

    @Test func countsAndSpansAreBounded() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let seed = try Binary.run(["seed", "--users", "9223372036854775807", "--db", home.path("big.sqlite")], home: home, timeout: 30)
        Self.expectOneLineError(seed, "seed --users Int64.max")
        #expect(seed.stderr.contains("--users must be from 0 to 10000000"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.url.path).filter { $0.contains("building") }.isEmpty)

        let span = try Binary.run(
            ["events", "simulate", "10000004", "--role", "developer", "--rate", "5m", "--for", "100000000", "--db", store], home: home,
            timeout: 30)
        Self.expectOneLineError(span, "events simulate --rate 5m --for 100000000")
        #expect(span.stderr.contains("--for must be from 1 to 36500 seconds at --rate 5m"))
        // The longest run allowed finishes: ten years of a monthly subscription at 30 s a month.
        let longest = try Binary.run(
            ["events", "simulate", "10000004", "--role", "developer", "--for", "3650", "--json", "--db", store], home: home,
            environment: ["USER": "tester"], timeout: 120)
        #expect(longest.status == 0, "\(longest.stderr)")
        #expect(try Binary.run(["check", "--db", store], home: home).status == 0)

        for arguments in [["--seconds", "9223372036854775807"], ["--rate", "1e300"], ["--seconds", "31536000", "--rate", "100000"]] {
            let result = try Binary.run(["simulate"] + arguments + ["--db", store], home: home, timeout: 30)
            Self.expectOneLineError(result, "simulate \(arguments)")
        }
    }

    /// The binary running `arguments` in `home`, its output thrown away, to be stopped by a signal.
    static func started(_ arguments: [String], home: TemporaryHome) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = arguments
        process.environment = ["HOME": home.url.path, "XDG_DATA_HOME": home.path("data"), "PATH": "/usr/bin:/bin"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Sends `signal` and expects the process to end by it (the signal's own ending, after any cleanup).
    static func stop(_ process: Process, _ signal: Int32, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(
            process.terminationReason == .uncaughtSignal && process.terminationStatus == signal, "\(name)", sourceLocation: sourceLocation)
    }

    /// A seed stopped by SIGINT, SIGTERM or SIGHUP leaves no `*.building-PID` file; one killed outright is
    /// cleared by the next seed at that path.
    @Test func anInterruptedSeedLeavesNothingBehind() throws {
        let home = TemporaryHome()
        let target = home.path("seeded.sqlite")
        func leftovers() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: home.url.path).filter { $0.contains(".building-") }
        }
        for (signal, name) in [(SIGINT, "INT"), (SIGTERM, "TERM"), (SIGHUP, "HUP"), (SIGKILL, "KILL")] {
            let process = try Self.started(["seed", "--users", "5000000", "--db", target, "--force"], home: home)
            let deadline = Date().addingTimeInterval(60)
            while try leftovers().isEmpty && process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            Thread.sleep(forTimeInterval: 0.3)
            Self.stop(process, signal, name)
            if signal == SIGKILL {
                #expect(try !leftovers().isEmpty, "SIGKILL cannot be caught")
                let next = try Binary.run(["seed", "--users", "10", "--db", target, "--force"], home: home)
                #expect(next.status == 0, "\(next.stderr)")
            }
            let left = try leftovers()
            #expect(left.isEmpty, "\(name): \(left)")
        }
    }

    /// A `user export` stopped by SIGINT or SIGTERM part-way leaves neither the hidden `.NAME.export-PID-N`
    /// with player rows in it nor a file under the name asked for; `--force` over what is no regular file
    /// is refused in one line before anything is written.
    @Test func anInterruptedExportLeavesNothingBehind() throws {
        let home = TemporaryHome()
        let store = home.path("big.sqlite")
        let seeded = try Binary.run(["seed", "--users", "20000", "--db", store], home: home, timeout: 300)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        let out = home.url.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let target = out.appendingPathComponent("users.csv").path
        func leftovers() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: out.path) }
        for (signal, name) in [(SIGTERM, "TERM"), (SIGINT, "INT")] {
            let process = try Self.started(["user", "export", target, "--db", store], home: home)
            // Stopped once its hidden file exists (the rows are being written), bounded.
            let deadline = Date().addingTimeInterval(60)
            while try leftovers().isEmpty && process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
            #expect(process.isRunning, "\(name): the export ended before it could be stopped")
            Self.stop(process, signal, name)
            let left = try leftovers()
            #expect(left.isEmpty, "\(name): \(left)")
        }
        // Over a fifo, a symbolic link or a folder, even with --force: one line, and each stays as it was.
        let fifo = out.appendingPathComponent("fifo").path, link = out.appendingPathComponent("link").path
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(symlink(store, link) == 0)
        for (path, kind) in [(fifo, "a fifo"), (link, "a symbolic link"), (out.path, "a directory")] {
            let result = try Binary.run(["user", "export", path, "--force", "--db", store], home: home)
            Self.expectOneLineError(result, naming: "\(path) is \(kind)", "export --force over \(kind)")
        }
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(try leftovers().sorted() == ["fifo", "link"])
    }

    /// Inputs that never end and a log file nobody reads: each refused at once in one line.
    @Test func endlessInputsAreRefused() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        for command in ["callback verify --app-key k3y", "callback sign --app-key k3y"] {
            let (status, output) = try shell("head -c 17000000 /dev/zero | tr '\\0' a | timeout 60 \(Binary.path) \(command)")
            #expect(status == 1, "\(command): \(status) \(output)")
            #expect(output == "storedesk: standard input holds more than 16 MiB: a callback body is at most that (serve's --max-body)\n", "\(command)")
        }
        let zero = try Binary.run(["events", "import", "/dev/zero", "--db", store], home: home, timeout: 30)
        Self.expectOneLineError(zero, naming: "/dev/zero", "events import /dev/zero")
        #expect(zero.stderr.contains("not a regular file"))
        let folder = try Binary.run(["events", "import", home.url.path, "--db", store], home: home, timeout: 30)
        Self.expectOneLineError(folder, "events import of a directory")
        #expect(folder.stderr.contains("not a regular file"))
        let fifo = home.path("log.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let serve = try Binary.run(["serve", "--listen", "127.0.0.1:0", "--log", fifo, "--db", store], home: home, timeout: 30)
        Self.expectOneLineError(serve, naming: fifo, "serve --log on a fifo nobody reads")
        #expect(serve.stderr.contains("a fifo nobody reads"))
        // A log file that cannot be made (its folder is missing) is one line naming it, before serve listens.
        let unmade = home.path("no-such-folder/serve.log")
        let missing = try Binary.run(["serve", "--listen", "127.0.0.1:0", "--log", unmade, "--db", store], home: home, timeout: 30)
        Self.expectOneLineError(missing, naming: unmade, "serve --log in a missing folder")
        #expect(missing.stderr.contains("cannot open it for writing (No such file or directory)"))
        #expect(!FileManager.default.fileExists(atPath: unmade))
    }

    // MARK: - Item 4: import

    /// One notification line from the demo's first, with its transaction's dates changed.
    static func notification(uuid: Int, chain: String, _ change: (inout [String: Any]) -> Void) throws -> String {
        let file = Binary.repository.appendingPathComponent("Data/Demo/notifications.jsonl")
        let first = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")[0]
        var note = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        // The demo's lines are signed: take the notification and its transaction and renewal out of their
        // JWS, so the line can be changed (a decoded line, imported as such).
        func payload(_ jws: Any?) throws -> [String: Any] {
            let part = try #require((jws as? String)?.split(separator: ".").dropFirst().first)
            var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            let bytes = try #require(Data(base64Encoded: text))
            return try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
        }
        if let signed = note["signedPayload"] {
            note = try payload(signed)
            var data = note["data"] as? [String: Any] ?? [:]
            data["transactionInfo"] = try payload(data.removeValue(forKey: "signedTransactionInfo"))
            data["renewalInfo"] = try payload(data.removeValue(forKey: "signedRenewalInfo"))
            note["data"] = data
        }
        note["notificationUUID"] = "00000000-0000-4000-8000-\(String(format: "%012ld", uuid))"
        var data = note["data"] as? [String: Any] ?? [:]
        var transaction = data["transactionInfo"] as? [String: Any] ?? [:]
        var renewal = data["renewalInfo"] as? [String: Any] ?? [:]
        transaction["transactionId"] = chain
        transaction["originalTransactionId"] = chain
        renewal["originalTransactionId"] = chain
        transaction.removeValue(forKey: "appAccountToken")
        change(&transaction)
        data["transactionInfo"] = transaction
        data["renewalInfo"] = renewal
        note["data"] = data
        return String(decoding: try JSONSerialization.data(withJSONObject: note, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func importRefusesDatesThatBreakTheStoreAndReadsCRLF() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let purchase: Int64 = 1_785_920_400_000
        let bad: [(String, (inout [String: Any]) -> Void)] = [
            ("expiresDate -1 ms is not after", { $0["expiresDate"] = -1 }),
            ("expiresDate 1970-01-01T00:00:00Z is not after", { $0["expiresDate"] = 0 }),
            ("is not after purchaseDate", { $0["expiresDate"] = Int64.min }),
            ("is before 2008-07-10", { $0["purchaseDate"] = -62_167_219_200_000; $0["originalPurchaseDate"] = -62_167_219_200_000 }),
            ("is after the notification was signed", { $0["purchaseDate"] = 253_402_214_400_000; $0["originalPurchaseDate"] = 253_402_214_400_000 }),
            ("is after the notification was signed", { $0["purchaseDate"] = Int64.max; $0["originalPurchaseDate"] = Int64.max }),
            ("has no expiresDate", { $0.removeValue(forKey: "expiresDate") }),
            ("is not after purchaseDate", { $0["expiresDate"] = purchase - 1000 }),
            ("is not a whole number of milliseconds", { $0["expiresDate"] = 1.5e300 }),
        ]
        let lines = try bad.enumerated().map { try Self.notification(uuid: $0.offset, chain: "99000\($0.offset)", $0.element.1) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: home.path("bad.jsonl"), atomically: true, encoding: .utf8)
        let result = try Binary.run(["events", "import", home.path("bad.jsonl"), "--db", store], home: home)
        #expect(result.status == 2)
        #expect(result.stdout.contains("imported 0, skipped 0, rejected 9"))
        let reasons = result.stderr.split(separator: "\n")
        try #require(reasons.count == 9, "\(result.stderr)")
        for (index, (reason, _)) in bad.enumerated() {
            #expect(reasons[index].hasPrefix("storedesk: \(home.path("bad.jsonl")):\(index + 1): "), "\(reasons[index])")
            #expect(reasons[index].contains(reason), "\(reasons[index]) should say \(reason)")
        }
        let check = try Binary.run(["check", "--db", store], home: home)
        #expect(check.status == 0, "\(check.stdout)")

        // CRLF line ends (a file saved on Windows): before, the whole file was refused.
        let good = try (0..<2).map { try Self.notification(uuid: 100 + $0, chain: "88000\($0)") { _ in } }
        try (good.joined(separator: "\r\n") + "\r\n").write(toFile: home.path("crlf.jsonl"), atomically: true, encoding: .utf8)
        let crlf = try Binary.run(["events", "import", home.path("crlf.jsonl"), "--db", store], home: home)
        #expect(crlf.status == 0, "\(crlf.stderr)")
        #expect(crlf.stdout.contains("imported 2, skipped 0, rejected 0"))
        #expect(try Binary.run(["check", "--db", store], home: home).status == 0)
    }

    // MARK: - Item 5: escape sequences

    @Test func storedTextIsShownEscapedInTextAndValidInJSON() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        let reason = "\u{1B}]0;PWNED\u{07}\u{1B}[31mRED"
        let decline = try Binary.run(
            ["restore", "decline", "2000000100000093", "--reason", reason, "--role", "support", "--db", store], home: home,
            environment: ["USER": "tester"])
        #expect(decline.status == 0, "\(decline.stderr)")
        #expect(!decline.stdout.contains("\u{1B}"))
        let audit = try Binary.run(["audit", "--limit", "1", "--db", store], home: home)
        #expect(!audit.stdout.contains("\u{1B}") && !audit.stdout.contains("\u{07}"))
        #expect(audit.stdout.contains("\\e]0;PWNED\\a\\e[31mRED"))
        let json = try Binary.run(["audit", "--limit", "1", "--json", "--db", store], home: home)
        #expect(!json.stdout.contains("\u{1B}"))
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.first?["detail"] as? String == reason, "JSON keeps the text itself, escaped the JSON way")
        let frame = try Binary.run(["snapshot", "--screen", "audit", "--db", store], home: home)
        #expect(!frame.stdout.contains("\u{1B}"))
        #expect(frame.stdout.contains("\\e]0;PWNED"))
        // A line break in stored text cannot add a line (a fake audit entry).
        let forged = "refund\n2026-11-20 08:00  boss (developer)  restore.confirm  transaction 1  ok"
        #expect(
            try Binary.run(
                ["restore", "decline", "2000000100000095", "--reason", forged, "--role", "support", "--db", store], home: home,
                environment: ["USER": "tester"]
            ).status == 0)
        let lines = try Binary.run(["audit", "--limit", "1", "--db", store], home: home).stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasSuffix("refund\\n2026-11-20 08:00  boss (developer)  restore.confirm  transaction 1  ok") == true, "\(lines)")

        // An id holding control characters makes no player at all: the line is refused,
        // its id shown escaped, nothing reaches the terminal raw.
        let line = try Self.notification(uuid: 7, chain: "\u{1B}[2J\u{1B}[HCLEARED") { _ in }
        try (line + "\n").write(toFile: home.path("esc.jsonl"), atomically: true, encoding: .utf8)
        let imported = try Binary.run(["events", "import", home.path("esc.jsonl"), "--db", store], home: home)
        #expect(imported.status != 0, "\(imported.stdout)")
        #expect(!imported.stdout.contains("\u{1B}") && !imported.stderr.contains("\u{1B}"))
        #expect((imported.stdout + imported.stderr).contains("\\e[2J"), "\(imported.stdout) \(imported.stderr)")
        let search = try Binary.run(["user", "search", "CLEARED", "--db", store], home: home)
        #expect(!search.stdout.contains("\u{1B}") && !search.stdout.contains("CLEARED"), "\(search.stdout)")
        let none = try Binary.run(["user", "search", "\u{1B}[2Jzz", "--db", store], home: home)
        #expect(!none.stderr.contains("\u{1B}"))
        // A C1 control (U+009B is a CSI on some terminals) the same: refused, shown escaped, no player.
        let c1 = try Self.notification(uuid: 8, chain: "\u{9B}31mC1") { _ in }
        try (c1 + "\n").write(toFile: home.path("c1.jsonl"), atomically: true, encoding: .utf8)
        let refused = try Binary.run(["events", "import", home.path("c1.jsonl"), "--db", store], home: home)
        #expect(refused.status != 0 && !(refused.stdout + refused.stderr).unicodeScalars.contains("\u{9B}"))
        let found = try Binary.run(["user", "search", "31mC1", "--json", "--db", store], home: home)
        #expect(!found.stdout.unicodeScalars.contains("\u{9B}"))
        let users = try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]]
        #expect(users?.isEmpty == true, "\(found.stdout)")
    }

    // MARK: - Item 6: callback sign

    @Test func callbackSignAndVerifyAreInverse() throws {
        let home = TemporaryHome()
        let key = home.path("app.key")
        try "k3y-0123456789".write(toFile: key, atomically: true, encoding: .utf8)
        for name in ["a.b", "a b", "a[]", "a[", "a[x]", " lead", "x]y", "a[b][c"] {
            for ending in ["\n", "\r\n"] {
                let input = ["order_id=1", "payment=appstore", "\(name)=v"].joined(separator: ending) + ending
                let signed = try Binary.run(["callback", "sign", "--app-key", "k3y-0123456789"], home: home, stdin: input)
                #expect(signed.status == 0, "\(name): \(signed.stderr)")
                let verified = try Binary.run(["callback", "verify", "--app-key", "k3y-0123456789", "--json"], home: home, stdin: signed.stdout)
                let verdict = (try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])?["verdict"] as? String
                #expect(verdict == "valid", "\(name) (\(ending.count == 2 ? "CRLF" : "LF")): \(signed.stdout) → \(verified.stdout)")
            }
        }
        for name in ["[a]", "sign[]", " sign"] {
            let refused = try Binary.run(["callback", "sign", "--app-key", "k3y-0123456789"], home: home, stdin: "order_id=1\n\(name)=v\n")
            Self.expectOneLineError(refused, "callback sign with '\(name)'")
            #expect(refused.stderr.hasPrefix("storedesk: line 2: "))
        }
    }

    // MARK: - Item 7: read-only places

    @Test func aReadOnlyStoreIsReadAndARefusedWriteLeavesNothingBesideIt() throws {
        let home = TemporaryHome()
        let folder = home.path("ro")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = folder + "/store.sqlite"
        try FileManager.default.copyItem(atPath: try Self.demoStore(home), toPath: store)
        #expect(try Self.sql(store, "PRAGMA journal_mode") == "wal")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: store)
        let before = FileManager.default.contents(atPath: store)
        func beside() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "store.sqlite" } }
        let decline = try Binary.run(
            ["restore", "decline", "2000000100000093", "--reason", "x", "--role", "support", "--db", store], home: home,
            environment: ["USER": "tester"])
        Self.expectOneLineError(decline, naming: store, "a write on a 0444 store")
        #expect(decline.stderr.contains("it is read-only (mode 444)"))
        let afterWrite = try beside()
        #expect(afterWrite.isEmpty, "a refused write left \(afterWrite)")
        for arguments in [["check"], ["user", "show", "10000001"], ["audit"], ["subs", "10000001"], ["restore", "list"], ["snapshot"]] {
            let result = try Binary.run(arguments + ["--db", store], home: home)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let afterReads = try beside()
        #expect(afterReads.isEmpty, "reads left \(afterReads)")
        #expect(FileManager.default.contents(atPath: store) == before)
    }

    /// A store in a folder this user cannot write: before, every command said "use --readonly", which
    /// most of them do not have. Run as `nobody` when the tests run as root (root writes anywhere).
    @Test func aStoreInAFolderNobodyMayWriteIsReadByEveryCommand() throws {
        let home = TemporaryHome()
        let folder = home.path("locked-folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let store = folder + "/store.sqlite"
        try FileManager.default.copyItem(atPath: try Self.demoStore(home), toPath: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder) }
        var prefix = ""
        if getuid() == 0 {
            guard try shell("command -v runuser").status == 0, try shell("runuser -u nobody -- test -x \(Self.quote(Binary.path))").status == 0 else {
                print("skipped: running as root, and nobody cannot run \(Binary.path)")
                return
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home.url.path)
            prefix = "runuser -u nobody -- "
        }
        func run(_ arguments: [String]) throws -> Binary.Result {
            let err = home.path("err-\(UUID().uuidString)")
            let line = prefix + "env HOME=/tmp XDG_DATA_HOME=/tmp/storedesk-nobody TZ=UTC " + ([Binary.path] + arguments + ["--db", store]).map(Self.quote).joined(separator: " ")
            let (status, out) = try shell(line + " 2>" + Self.quote(err))
            let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: err)
            return Binary.Result(status: status, stdout: out, stderr: stderr)
        }
        for arguments in [["check"], ["user", "show", "10000001"], ["audit"], ["subs", "10000001"], ["restore", "list"], ["snapshot", "--readonly"], ["snapshot"]] {
            let result = try run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        let write = try run(["restore", "decline", "2000000100000093", "--reason", "x", "--role", "support"])
        Self.expectOneLineError(write, naming: store, "a write in a folder nobody may write")
        #expect(!write.stderr.contains("use --readonly"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["store.sqlite"])
    }

    // MARK: - Item 8: one-line errors

    /// Many bad command lines on many broken stores: every failure is one line naming what was wrong,
    /// never SQL, never a trap, never a hang.
    @Test func everyErrorIsOneLine() throws {
        let home = TemporaryHome()
        let good = try Self.demoStore(home, "good.sqlite")
        var stores: [String: String] = ["good": good, "missing": home.path("missing.sqlite")]
        func damaged(_ name: String, _ script: String) throws {
            let path = try Self.demoStore(home, name + ".sqlite")
            #expect(try shell("sqlite3 \(Self.quote(path)) \(Self.quote(script))").status == 0, "\(name)")
            stores[name] = path
        }
        try damaged("notable", "DROP TABLE audit_log; DROP TABLE restore_request;")
        try damaged("badtype", "UPDATE user SET created_at = 'abc'; UPDATE subscription SET expires_date = 'zz'; UPDATE store_transaction SET purchase_date = 'x';")
        try damaged("clock", "UPDATE store_meta SET value = '-1' WHERE key = 'clock'")
        try damaged("rate", "UPDATE subscription SET time_rate_month_ms = 9223372036854775807")
        try damaged("newer", "INSERT INTO grdb_migrations VALUES ('v99-future')")
        let nokey = try Self.demoStore(home, "nokey.sqlite")
        try Self.dropUserKey(nokey)
        stores["nokey"] = nokey
        for (name, bytes) in [("empty", Data()), ("text", Data("hello\n".utf8)), ("truncated", (FileManager.default.contents(atPath: good) ?? Data()).prefix(5000))] {
            let path = home.path(name + ".sqlite")
            #expect(FileManager.default.createFile(atPath: path, contents: bytes))
            stores[name] = path
        }
        let folder = home.path("folder.sqlite")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        stores["folder"] = folder
        let fifo = home.path("fifo.sqlite")
        #expect(mkfifo(fifo, 0o644) == 0)
        stores["fifo"] = fifo
        // "unable to open database file": the WAL's -wal path is a folder.
        let walFolder = try Self.demoStore(home, "walfolder.sqlite")
        try FileManager.default.createDirectory(atPath: walFolder + "-wal", withIntermediateDirectories: true)
        stores["walfolder"] = walFolder
        let readOnly = try Self.demoStore(home, "readonly.sqlite")
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: readOnly)
        stores["readonly"] = readOnly

        let commands: [[String]] = [
            ["check"], ["user", "show", "10000001"], ["user", "show", "nobody"], ["user", "search", "张"], ["audit", "--limit", "3"],
            ["subs", "10000001"], ["subs", "10000001", "--at", "bogus"], ["restore", "list"],
            ["restore", "decline", "2000000100000095", "--reason", "r", "--role", "support"],
            ["restore", "purchases", "--account", "10000001", "--sid", "s1", "--role-id", "r10000001-1", "--role", "support"],
            ["login", "as", "10000001", "--role", "support"], ["login", "entries", "show", "--app", "1001"],
            ["login", "onetap", "advance", "99999999999999", "--role", "developer"],
            ["events", "simulate", "10000004", "--role", "developer", "--for", "60"],
            ["simulate", "--seconds", "1", "--rate", "5"], ["snapshot", "--screen", "subscriptions"], ["snapshot", "--screen", "queue"],
            ["snapshot", "--screen", "audit"], ["snapshot", "--size", "0x0"], ["subs"], ["user", "show", "--nonsense"],
        ]
        var runs = 0, failures = 0
        for (name, store) in stores.sorted(by: { $0.key < $1.key }) {
            for command in commands {
                let result = try Binary.run(command + ["--db", store], home: home, environment: ["USER": "tester"], timeout: 60)
                runs += 1
                #expect(result.status != -1, "\(name) \(command) hung")
                #expect(result.status < 128, "\(name) \(command): exit \(result.status)")
                // `check` finding problems and `events simulate` with refused notifications report on stdout
                // (and per refusal); every other failure is exactly one line.
                let reportsFindings = command == ["check"] && result.status == 1 && result.stderr.isEmpty
                let perLine = command.first == "events" && result.status == 2
                guard result.status != 0, !reportsFindings, !perLine else { continue }
                failures += 1
                Self.expectOneLineError(result, "\(name): \(command)")
            }
        }
        #expect(failures > 100)
        print("one-line errors: \(runs) command lines on \(stores.count) stores, \(failures) failed, each in one line")
    }

    /// "database is locked" names the file and what to do.
    /// A write on a store another process holds locked waits its turn up to `STOREDESK_LOCK_WAIT`, then
    /// fails in one line naming the store, which is left as it was; a wait that is not seconds is refused
    /// before anything is opened.
    @Test func aLockedStoreIsNamed() throws {
        let home = TemporaryHome()
        let store = try Self.demoStore(home)
        _ = try Self.sql(store, "PRAGMA journal_mode = DELETE")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        // sqlite3 holds an exclusive lock until the test closes its input (no fixed sleep either way).
        let holder = Process(), input = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["sqlite3", store]
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer {
            try? input.fileHandleForWriting.close()
            holder.waitUntilExit()
        }
        // It waits out the probe below, whose own brief lock would otherwise refuse its BEGIN ("database is locked").
        input.fileHandleForWriting.write(Data("PRAGMA busy_timeout = 10000; BEGIN EXCLUSIVE; UPDATE store_meta SET value = value;\n".utf8))
        // The lock is held once another connection that will not wait cannot begin a write.
        let probe = "sqlite3 \(Self.quote(store)) 'PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;' >/dev/null 2>&1"
        let deadline = Date().addingTimeInterval(10)
        var held = false
        while !held, Date() < deadline {
            held = try shell(probe).status != 0
            if !held { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(held, "sqlite3 never took the lock")
        let started = Date()
        let refused = try Binary.run(
            ["restore", "decline", "2000000100000095", "--reason", "r", "--role", "support", "--db", store], home: home,
            environment: ["USER": "tester", "STOREDESK_LOCK_WAIT": "1"], timeout: 60)
        Self.expectOneLineError(refused, naming: store, "a write on a locked store")
        #expect(refused.stderr.contains("is locked by another process"), "\(refused.stderr)")
        #expect(Date().timeIntervalSince(started) < 30, "the write waited far longer than STOREDESK_LOCK_WAIT")
        let bad = try Binary.run(["check", "--db", store], home: home, environment: ["STOREDESK_LOCK_WAIT": "soon"])
        Self.expectOneLineError(bad, naming: "STOREDESK_LOCK_WAIT", "a lock wait that is not seconds")
        #expect(bad.status == 64)
        // Let go: the holder's transaction rolls back, and the store is byte for byte as it was.
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
    }
}
