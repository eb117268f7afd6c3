import Foundation
import Testing

/// Many processes writing one store at once, on the real binary: simulations side by side,
/// looping, killed with SIGKILL and restarted, the console's simulation in tmux beside them, restore
/// confirms and `check` in between. Each test is bounded by wall-clock deadlines of a few seconds.
@Suite(.serialized) struct ConcurrentWritersTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    static func quote(_ text: String) -> String { RestoreCommandTests.quote(text) }

    /// A seeded store of the test's own (it has open restore prompts for the confirm loop).
    static func seededStore(_ home: TemporaryHome) throws -> String {
        let path = home.path("shared.sqlite")
        let seeded = try Binary.run(["seed", "--users", "300", "--seed", "5", "--db", path], home: home)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return path
    }

    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }

    static func count(_ path: String, _ query: String) throws -> Int { Int(try sql(path, query)) ?? -1 }

    /// A file the test wrote, or "" (for messages).
    static func text(_ path: String) -> Comment { Comment(rawValue: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "") }

    /// A shell script running in the background; its exit status when it ends.
    final class Background {
        let process = Process()

        init(_ script: String) throws {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        /// Waits at most `seconds`, then kills it; returns its status (128 + signal when a signal ended it).
        func finish(within seconds: TimeInterval) -> Int32 {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning {
                Issue.record("still running after \(seconds) s: \(process.arguments ?? [])")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        }

        deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    }

    /// `storedesk ARGS` as a shell word list, with the test's private HOME.
    static func command(_ arguments: [String], home: TemporaryHome) -> String {
        RestoreCommandTests.commandLine(arguments, home: home)
    }

    /// A loop running `arguments` (with `$i`, the iteration, substituted for `SEED`) until `seconds` have
    /// passed, writing each run's exit status and its stderr to `name`.status and `name`.err.
    static func loop(_ name: String, _ arguments: [String], seconds: Int, home: TemporaryHome) throws -> Background {
        let status = home.path(name + ".status"), err = home.path(name + ".err")
        let run = command(arguments, home: home).replacingOccurrences(of: "'SEED'", with: "$i")
        return try Background(
            """
            end=$(( $(date +%s) + \(seconds) )); i=0
            while [ $(date +%s) -lt $end ]; do i=$((i+1)); \(run) >/dev/null 2>>\(quote(err)); echo $? >> \(quote(status)); done
            """)
    }

    /// Every exit status a loop wrote, and its stderr.
    static func statuses(_ name: String, home: TemporaryHome) -> (codes: [String], stderr: String) {
        let codes = ((try? String(contentsOfFile: home.path(name + ".status"), encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (codes, (try? String(contentsOfFile: home.path(name + ".err"), encoding: .utf8)) ?? "")
    }

    /// A loop confirming open restore prompts onto the paying account, one process each.
    static func confirmLoop(_ db: String, seconds: Int, home: TemporaryHome) throws -> Background {
        let status = home.path("confirm.status"), err = home.path("confirm.err")
        let pick = "sqlite3 -cmd '.timeout 60000' -separator ' ' \(quote(db)) "
            + quote(
                """
                SELECT r.transaction_id, t.user_id, t.sid, t.role_id FROM restore_request r
                JOIN store_transaction t ON t.id = r.transaction_id WHERE r.status = 'open' ORDER BY r.id LIMIT 1
                """)
        let confirm = command(["restore", "confirm", "TXN", "--account", "ACCOUNT", "--sid", "SID", "--role-id", "ROLE", "--db", db]
                + RestoreCommandTests.support, home: home)
            .replacingOccurrences(of: "'TXN'", with: "\"$1\"").replacingOccurrences(of: "'ACCOUNT'", with: "\"$2\"")
            .replacingOccurrences(of: "'SID'", with: "\"$3\"").replacingOccurrences(of: "'ROLE'", with: "\"$4\"")
        return try Background(
            """
            end=$(( $(date +%s) + \(seconds) ))
            while [ $(date +%s) -lt $end ]; do
              set -- $(\(pick)); [ -n "$1" ] || { sleep 0.2; continue; }
              \(confirm) >/dev/null 2>>\(quote(err)); echo $? >> \(quote(status)); sleep 0.1
            done
            """)
    }

    /// The console on `db` in tmux as a developer, its simulation started at 20×; its process id in
    /// `NAME.pid`, and `EXIT=…` in `NAME.exit` once it ends. `on` wraps the command that starts it (another
    /// machine's `ip netns exec`).
    static func console(_ db: String, home: TemporaryHome, name: String = "console", on machine: (String) -> String = { $0 }) throws -> Tmux {
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let pid = home.path(name + ".pid"), exit = home.path(name + ".exit")
        let tmux = try Tmux(
            width: 120, height: 40,
            command: machine("env \(env) sh -c 'echo $$ > \(pid); exec \(Binary.path) --db \(db) --role developer --refresh 0.3'; ")
                + "echo \"EXIT=$?\" > \(exit).part; mv \(exit).part \(exit); sleep 60")
        try tmux.waitFor("Profile", timeout: 30)
        try tmux.keys("2")
        try tmux.waitFor("no simulation in this console (r starts one)", timeout: 20)
        try tmux.keys("r")
        try tmux.waitFor("simulation ▶ 1×", timeout: 20)
        try tmux.keys(":")
        try tmux.literal("rate 20")
        try tmux.keys("Enter")
        try tmux.keys("+", "+", "+", "+")
        try tmux.waitFor("simulation ▶ 20×", timeout: 20)
        return tmux
    }

    /// Quits the console and returns what it printed as its exit.
    static func quit(_ tmux: Tmux, home: TemporaryHome, marker: String? = nil) throws -> String {
        let screen = try tmux.capture()
        #expect(!screen.contains("simulation stopped"), "the console's simulation failed:\n\(screen)")
        try tmux.keys("q")
        let marker = marker ?? home.path("console.exit")
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        Thread.sleep(forTimeInterval: 0.2)
        return (try? String(contentsOfFile: marker, encoding: .utf8)) ?? ""
    }

    /// Resumes whatever runs that are gone left in flight, to the end (600 simulated seconds, no arrivals).
    static func finishEverything(_ db: String, home: TemporaryHome) throws {
        let last = try Binary.run(["simulate", "--seconds", "600", "--rate", "0.0001", "--db", db], home: home)
        #expect(last.status == 0, "\(last.stderr)")
    }

    /// The store is clean, nothing simulated is left in flight but dropped orders, and every paid
    /// purchase (but a dropped order waiting for the restore desk) is granted exactly once.
    static func expectEveryPaidPurchaseGrantedOnce(_ db: String, home: TemporaryHome) throws {
        let check = try Binary.run(["check", "--db", db], home: home)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let crashed = "EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')"
        let simulated = "(t.id LIKE 'sim%' OR t.id LIKE 'live%')"
        #expect(try count(db, "SELECT COUNT(*) FROM store_transaction t WHERE \(simulated) AND t.finished = 0 AND NOT \(crashed)") == 0)
        let grants = "(SELECT COUNT(*) FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.transaction_id = t.id)"
        #expect(try count(db, "SELECT COUNT(*) FROM store_transaction t WHERE \(simulated) AND t.state = 'purchased' AND NOT \(crashed) AND \(grants) != 1") == 0)
        #expect(try count(db, "SELECT COUNT(*) FROM store_transaction t WHERE \(simulated) AND t.state = 'purchased' AND \(grants) = 1") > 100)
        #expect(try count(db, "SELECT COUNT(*) FROM payment_order WHERE status = 'pending' AND order_id IN (SELECT order_id FROM item_grant)") == 0)
        #expect(try count(db, "SELECT COUNT(*) FROM payment_order WHERE order_id GLOB '*[^0-9]*'") == 0, "order ids are numbers")
    }

    /// The first repro of concurrent runs: a short run started beside a long one took over the long one's live
    /// work and failed with `UNIQUE constraint failed: item_grant.order_id`. (The long one is paced, 4 s
    /// of wall clock, so the test takes as long on a debug build.)
    @Test func aRunStartedBesideALiveOneLeavesItsWorkAlone() throws {
        let home = TemporaryHome()
        let db = try Self.seededStore(home)
        let long = try Background(
            Self.command(["simulate", "--seconds", "100", "--rate", "200", "--speed", "25", "--seed", "1", "--db", db], home: home)
                + " >/dev/null 2>" + Self.quote(home.path("long.err")))
        // Once the long run has purchases in flight, a short one runs to its end
        let deadline = Date().addingTimeInterval(20)
        while (try Self.count(db, "SELECT COUNT(*) FROM store_transaction WHERE id LIKE 'sim%' AND finished = 0")) < 50 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let short = try Binary.run(["simulate", "--seconds", "5", "--rate", "10", "--seed", "2", "--json", "--db", db], home: home)
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stdout.contains("\"resumed\" : 0"), "\(short.stdout)")
        #expect(long.finish(within: 60) == 0, Self.text(home.path("long.err")))
        try Self.finishEverything(db, home: home)
        try Self.expectEveryPaidPurchaseGrantedOnce(db, home: home)
    }

    /// Four looping simulations (two fast, two paced), the console's simulation, restore confirms and
    /// `check`, all on one store for 10 seconds: every process exits 0 and the store is clean.
    @Test func simulationsTheConsoleRestoresAndCheckTogether() throws {
        let home = TemporaryHome()
        let db = try Self.seededStore(home)
        let tmux = try Self.console(db, home: home)
        let faults = ["--fault", "clientCrash:0.05", "--fault", "networkDrop:0.2", "--fault", "duplicateCallback:0.1"]
        let fast = ["simulate", "--seconds", "10", "--rate", "50", "--seed", "SEED", "--db", db] + faults
        let paced = ["simulate", "--seconds", "40", "--rate", "20", "--speed", "20", "--seed", "SEED", "--db", db] + faults
        let loops = try [
            Self.loop("fast1", fast, seconds: 10, home: home), Self.loop("fast2", fast, seconds: 10, home: home),
            Self.loop("paced1", paced, seconds: 10, home: home), Self.loop("paced2", paced, seconds: 10, home: home),
            Self.loop("check", ["check", "--db", db], seconds: 10, home: home),
        ]
        let confirms = try Self.confirmLoop(db, seconds: 10, home: home)
        for loop in loops { #expect(loop.finish(within: 60) == 0) }
        #expect(confirms.finish(within: 60) == 0)
        #expect(try Self.quit(tmux, home: home).hasPrefix("EXIT=0"))
        for name in ["fast1", "fast2", "paced1", "paced2", "check", "confirm"] {
            let (codes, stderr) = Self.statuses(name, home: home)
            #expect(!codes.isEmpty && codes.allSatisfy { $0 == "0" }, "\(name) exits \(codes): \(stderr)")
        }
        #expect(Self.statuses("confirm", home: home).codes.count >= 3, "restore confirms ran beside the simulations")
        #expect(try Self.count(db, "SELECT COUNT(*) FROM transaction_event WHERE transaction_id LIKE 'live%'") > 20, "the console simulated")
        // Every loop ran (a slow debug build on a busy machine may manage one run each in the window).
        #expect(try Self.count(db, "SELECT COUNT(DISTINCT pid) FROM payment_run WHERE kind = 'simulate'") >= 4)
        try Self.finishEverything(db, home: home)
        try Self.expectEveryPaidPurchaseGrantedOnce(db, home: home)
    }

    /// SIGKILL of a simulation and of the console mid-run, beside a live simulation: the runs that
    /// restart at the same moment take the dead ones' work over exactly once between them, and leave
    /// the live one's alone.
    @Test func killedWritersWorkIsTakenOverOnceByTheRunsThatRestart() throws {
        let home = TemporaryHome()
        let db = try Self.seededStore(home)
        let tmux = try Self.console(db, home: home)
        let paced = { (seed: String, seconds: String) in
            ["simulate", "--seconds", seconds, "--rate", "30", "--speed", "20", "--seed", seed, "--json", "--db", db,
             "--fault", "networkDrop:0.3", "--fault", "clientCrash:0.05"]
        }
        let victim = try Background("exec " + Self.command(paced("1", "600"), home: home) + " >/dev/null 2>&1")
        let survivor = try Background(
            // 15 s of wall clock: alive through the kills and the restarts, however slow the machine.
            "exec " + Self.command(paced("2", "300"), home: home)
                + " >\(Self.quote(home.path("survivor.json"))) 2>\(Self.quote(home.path("survivor.err")))")
        // Let all three put work in flight, then kill the victim and the console
        let deadline = Date().addingTimeInterval(20)
        while try Self.count(db, "SELECT COUNT(DISTINCT run_id) FROM store_transaction WHERE finished = 0 AND run_id IS NOT NULL") < 3
            && Date() < deadline
        {
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 1)
        let consolePid = try String(contentsOfFile: home.path("console.pid"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let runOf = { (pid: String) in try Self.sql(db, "SELECT id FROM payment_run WHERE pid = \(pid)") }
        let dead = [try runOf(consolePid), try runOf(String(victim.process.processIdentifier))].sorted()
        let alive = try runOf(String(survivor.process.processIdentifier))
        try shell("kill -9 \(victim.process.processIdentifier) \(consolePid)")
        #expect(victim.finish(within: 10) == 128 + SIGKILL)
        let orphaned = try Self.count(
            db,
            """
            SELECT COUNT(*) FROM store_transaction t WHERE t.finished = 0 AND t.run_id IN (\(dead.joined(separator: ",")))
            AND NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')
            AND NOT EXISTS (SELECT 1 FROM restore_request r WHERE r.transaction_id = t.id)
            """)
        #expect(orphaned > 0, "the kills must leave work in flight")
        // Three runs restart at the same moment while the survivor lives on
        let restarts = try (1...3).map { n in
            try Background(
                "exec " + Self.command(["simulate", "--seconds", "20", "--rate", "5", "--speed", "20", "--seed", "\(10 + n)", "--json", "--db", db], home: home)
                    + " >\(Self.quote(home.path("restart\(n).json"))) 2>\(Self.quote(home.path("restart\(n).err")))")
        }
        for (n, restart) in restarts.enumerated() {
            #expect(restart.finish(within: 60) == 0, Self.text(home.path("restart\(n + 1).err")))
        }
        let reports = (1...3).compactMap { n in
            (try? Data(contentsOf: URL(fileURLWithPath: home.path("restart\(n).json"))))
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
        #expect(reports.count == 3)
        // Each dead run's work went to exactly one of them; the live one's to none
        let tookOver = reports.map { ($0["took_over_from"] as? [Int] ?? []).map(String.init) }
        for run in dead { #expect(tookOver.filter { $0.contains(run) }.count == 1, "run \(run) taken over by \(tookOver)") }
        #expect(!tookOver.joined().contains(alive))
        let resumed = reports.map { ($0["summary"] as? [String: Any])?["resumed"] as? Int ?? -1 }
        #expect(resumed.reduce(0, +) >= orphaned, "\(resumed) of \(orphaned)")
        #expect(survivor.finish(within: 60) == 0, Self.text(home.path("survivor.err")))
        #expect(try Self.sql(db, "SELECT taken_over_by IS NULL FROM payment_run WHERE id = \(alive)") == "1")
        // The console died of the signal (its tmux window lives on until here)
        withExtendedLifetime(tmux) {
            #expect(Self.text(home.path("console.exit")).rawValue.hasPrefix("EXIT=137"))
        }
        try Self.finishEverything(db, home: home)
        try Self.expectEveryPaidPurchaseGrantedOnce(db, home: home)
    }
}
