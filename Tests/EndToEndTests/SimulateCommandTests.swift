import Foundation
import Testing

/// `storedesk simulate` through the real binary, including a SIGKILL in the middle of a run.
@Suite struct SimulateCommandTests {
    /// A seeded store of its own, with the current schema.
    static func seededStore(_ home: TemporaryHome) throws -> String {
        let path = home.path("seeded.sqlite")
        let seeded = try Binary.run(["seed", "--users", "300", "--seed", "5", "--db", path], home: home)
        #expect(seeded.status == 0, "\(seeded.stderr)")
        return path
    }

    @Test func aRunWithFaultsPrintsItsSummaryAndLeavesACleanStore() throws {
        let home = TemporaryHome()
        let path = try Self.seededStore(home)
        let run = try Binary.run(
            [
                "simulate", "--seconds", "30", "--rate", "20", "--seed", "4", "--fault", "clientCrash:0.1",
                "--fault", "networkDrop:0.3", "--fault", "duplicateCallback", "--fault", "tamperedSign:0.1",
                "--fault", "tamperedField:0.1", "--fault", "askToBuy:0.1", "--fault", "failedPayment:0.1",
                "--fault", "serverDown:5", "--json", "--db", path,
            ], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let summary = object?["summary"] as? [String: Any] ?? [:]
        let grants = summary["grants"] as? Int ?? 0
        #expect(grants > 100)
        #expect(summary["callbacks_accepted"] as? Int == grants)
        #expect((summary["callbacks_rejected"] as? Int ?? 0) > 0)
        #expect((summary["callbacks_duplicate"] as? Int ?? 0) > 0)
        #expect((summary["dropped_orders"] as? Int ?? 0) > 0)
        #expect((summary["states"] as? [String: Int])?["failed"] ?? 0 > 0)
        let sql = "SELECT COUNT(*) FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id WHERE o.transaction_id LIKE 'sim%'"
        #expect(try shell("sqlite3 \(path) \"\(sql)\"").output == "\(grants)\n")
        let check = try Binary.run(["check", "--db", path], home: home)
        #expect(check.status == 0, "\(check.stdout)")
        let text = try Binary.run(["simulate", "--seconds", "5", "--db", path], home: home)
        #expect(text.status == 0)
        #expect(text.stdout.contains("callbacks       accepted "))
        #expect(text.stdout.contains("dropped orders  0"))
    }

    @Test func badValuesGiveOneLineAndLeaveTheStoreUntouched() throws {
        let home = TemporaryHome()
        let path = try Self.seededStore(home)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let cases: [([String], String)] = [
            (["--fault", "meteor"], "storedesk: --fault 'meteor': unknown fault kind"),
            (["--fault", "networkDrop:1.5"], "storedesk: --fault 'networkDrop:1.5': networkDrop takes a probability"),
            (["--fault", "serverDown:soon"], "storedesk: --fault 'serverDown:soon': serverDown takes"),
            (["--seconds", "0"], "storedesk: --seconds must be from 1 to 31536000 (a year), got 0"),
        ]
        for (arguments, prefix) in cases {
            let result = try Binary.run(["simulate", "--db", path] + arguments, home: home)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.hasPrefix(prefix), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
            #expect(result.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// Unfinished simulated transactions whose client crashed: they wait for a restore prompt.
    static let crashedOpen = """
        SELECT COUNT(*) FROM store_transaction t WHERE t.id LIKE 'sim%' AND t.finished = 0
        AND EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')
        """

    @Test func aSimulationKilledWithSIGKILLLeavesNoPaidOrderLostAndNoneGrantedTwice() throws {
        let home = TemporaryHome()
        let path = try Self.seededStore(home)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = [
            "simulate", "--seconds", "600", "--rate", "50", "--speed", "20", "--seed", "11", "--fault", "clientCrash:0.1",
            "--fault", "networkDrop:0.3", "--fault", "duplicateCallback:0.3", "--fault", "tamperedSign:0.1",
            "--fault", "askToBuy:0.1", "--db", path,
        ]
        process.environment = ["HOME": home.url.path, "LANG": "C.UTF-8", "TZ": "UTC"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let count = { (sql: String) throws -> Int in
            Int(try shell("sqlite3 \(path) \"\(sql)\"").output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        // Killed mid-run, once it has written enough to lose (at most 30 s).
        let grantsSQL = "SELECT COUNT(*) FROM item_grant g JOIN payment_order o ON o.order_id = g.order_id WHERE o.transaction_id LIKE 'sim%'"
        let deadline = Date().addingTimeInterval(30)
        while try Date() < deadline && process.isRunning && (count("SELECT COUNT(*) FROM transaction_event") <= 100 || count(grantsSQL) <= 10) {
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(process.isRunning, "the run must still be going when it is killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)

        #expect(try count("SELECT COUNT(*) FROM transaction_event") > 100)
        #expect(try count(grantsSQL) > 10)
        // No paid order lost: every paid simulated transaction is granted, or still open in the queue.
        let lost = """
            SELECT COUNT(*) FROM store_transaction t WHERE t.id LIKE 'sim%' AND t.state = 'purchased' AND t.finished = 1
            AND NOT EXISTS (SELECT 1 FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.transaction_id = t.id)
            """
        #expect(try count(lost) == 0)
        #expect(try count("SELECT COUNT(*) FROM (SELECT order_id FROM item_grant GROUP BY order_id HAVING COUNT(*) > 1)") == 0)
        let check = try Binary.run(["check", "--db", path, "--json"], home: home)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(try shell("sqlite3 \(path) 'PRAGMA integrity_check'").output == "ok\n")

        // A restart picks up everything left in flight: afterwards no simulated transaction is unfinished
        // except the dropped orders (the client crashed), and every paid one is granted exactly once.
        let inFlight = try count("SELECT COUNT(*) FROM store_transaction WHERE id LIKE 'sim%' AND finished = 0")
        #expect(inFlight > 0, "the kill must leave work in flight")
        let again = try Binary.run(["simulate", "--seconds", "600", "--rate", "0.0001", "--json", "--db", path], home: home)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"resumed\" : \(inFlight - (try count(Self.crashedOpen)))"), "\(again.stdout)")
        let open = "SELECT COUNT(*) FROM store_transaction WHERE id LIKE 'sim%' AND finished = 0"
        #expect(try count(open) == (try count(Self.crashedOpen)))
        let paidUngranted = """
            SELECT COUNT(*) FROM store_transaction t WHERE t.id LIKE 'sim%' AND t.state = 'purchased'
            AND NOT EXISTS (SELECT 1 FROM transaction_event e WHERE e.transaction_id = t.id AND e.kind = 'client_crashed')
            AND NOT EXISTS (SELECT 1 FROM payment_order o JOIN item_grant g ON g.order_id = o.order_id WHERE o.transaction_id = t.id)
            """
        #expect(try count(paidUngranted) == 0)
        #expect(try count("SELECT COUNT(*) FROM (SELECT order_id FROM item_grant GROUP BY order_id HAVING COUNT(*) > 1)") == 0)
        #expect(try Binary.run(["check", "--db", path], home: home).status == 0)
    }
}

@Suite struct BenchQueueTests {
    @Test func benchQueuePrintsThePipelineBesideRawInserts() throws {
        let home = TemporaryHome()
        let result = try Binary.run(["bench", "queue", "--transactions", "300"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.first?.hasPrefix("queue: ") == true)
        #expect(lines.contains { $0.contains("pipeline (sign, verify, persist)") && $0.contains("transactions/s") })
        #expect(lines.contains { $0.contains("raw SQLite inserts, same rows") && $0.contains("pipeline/raw") })
        let bad = try Binary.run(["bench", "queue", "--transactions", "0"], home: home)
        #expect(bad.status == 1)
        #expect(bad.stderr == "storedesk: --transactions must be from 1 to 2000000, got 0\n")
    }
}
