import Foundation
import StoreDeskCore
import StoreDeskNetwork
@testable import StoreDeskSQLite
import Testing

/// `storedesk serve`, the real binary on loopback, answered by curl, by the PHP vectors and by a bounded
/// load client, killed with SIGKILL and stopped with SIGTERM under load.
@Suite(.serialized) struct ServeTests {
    static let key = "k3y-S3cr3t-2026"

    static func callback(_ orderId: String, key: String = ServeTests.key, overrides: [String: String] = [:]) -> String {
        let fields: [(String, String)] = [
            ("order_id", orderId), ("payment", "appstore"), ("sub_payment", "Sandbox"), ("user_id", "u_13800001234"),
            ("client_id", "app_galaxy"), ("app", "Galaxy Quest"), ("app_id", "s1"), ("app_order_id", "G-" + orderId),
            ("role_id", "角色 1"), ("product_id", "com.example.gems.60"), ("ext", "{\"n\":\"a+b&c\"}"), ("timestamp", "1772352000"),
        ]
        return ServerCallback(fields: fields.map { .init($0.0, overrides[$0.0] ?? $0.1) }, appKey: key).body
    }

    static func curl(_ url: String, _ body: String, type: String = "application/x-www-form-urlencoded") throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("body-" + UUID().uuidString)
        try Data(body.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try shell("curl -s --max-time 10 -H 'Content-Type: \(type)' --data-binary @\(file.path) -w ' %{http_code}' \(url)").output
    }

    static func counts(_ path: String) throws -> (callbacks: Int, grants: Int) {
        let store = try AppDatabase.open(path: path, access: .readOnly)
        return try store.reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM game_server_callback") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM game_server_grant") ?? 0)
        }
    }

    @Test("curl: success, a repeat answered success and granted once, a bad sign refused, /healthz, one log line each, AppKey and phone masked")
    func curlAnswers() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let serve = try ServeProcess(store: path, folder: folder)
        #expect(try Self.curl(serve.url, Self.callback("20260301000001")) == "success 200")
        #expect(try Self.curl(serve.url, Self.callback("20260301000001")) == "success 200")
        #expect(try Self.curl(serve.url, Self.callback("20260301000002", key: "guessed")) == "fail: bad sign 200")
        #expect(try shell("curl -s --max-time 5 http://127.0.0.1:\(serve.port)/healthz").output == "ok\n")
        let grants = try AppDatabase.open(path: path, access: .readOnly).gameServerGrants()
        #expect(grants.map(\.orderId) == ["20260301000001"])
        #expect(grants.first?.productId == "com.example.gems.60")
        #expect(serve.stop() == 0)
        let lines = serve.logLines
        let posts = lines.filter { $0.contains(" POST /callback ") }
        #expect(posts.count == 3, "one line per request: \(lines)")
        #expect(lines.filter { $0.contains(" GET /healthz 200 ") }.count == lines.count - 3)
        #expect(lines.allSatisfy { !$0.contains(Self.key) && !$0.contains("13800001234") })
        #expect(posts.first?.contains("POST /callback 200") == true)
        #expect(posts.first?.contains("granted com.example.gems.60 to u_138****1234") == true, "\(posts)")
        #expect(posts.last?.contains("\"fail: bad sign\"") == true)
        #expect(try AppDatabase.open(path: path, access: .readOnly).check().isEmpty)
    }

    @Test("the PHP vectors over HTTP: serve refuses a signature exactly where PHP's verify_sign does, and answers as the PHP server")
    func vectorsOverHTTP() async throws {
        let folder = TemporaryFolder()
        let vectors = try VectorBodies.load()
        #expect(vectors.count == 139)
        let poster = CallbackPoster(timeout: 5, connectionsPerHost: 4)
        var compared = 0
        for (key, group) in Dictionary(grouping: vectors, by: \.key) {
            let path = try galaxyStore(folder, key: key, name: "store-\(compared).sqlite")
            let serve = try ServeProcess(store: path, folder: folder)
            let php = try PHPGameServer(keys: ["app_galaxy": key], folder: folder)
            for vector in group {
                let ours = await poster.post(bytes: vector.body, to: serve.url)
                let theirs = await poster.post(bytes: vector.body, to: php.url)
                let ourSignatureRefusal = ours.body == Array("fail: bad sign".utf8) || ours.body == Array("fail: missing sign".utf8)
                let theirSignatureRefusal = theirs.body == Array("fail: bad sign".utf8)
                #expect(ourSignatureRefusal == theirSignatureRefusal, "\(vector.name): serve \(ours.summary), PHP \(theirs.summary)")
                let knowsApp = PHPQuery.parseStr(bytes: vector.body).text("client_id") == "app_galaxy"
                if let verdict = vector.phpVerdict, knowsApp {
                    #expect(ourSignatureRefusal == (verdict != "valid"), "\(vector.name): PHP's verdict \(verdict), serve \(ours.summary)")
                }
                if theirs.isSuccess && vector.grantable { #expect(ours.isSuccess, "\(vector.name): serve \(ours.summary)") }
                if ours.isSuccess { #expect(theirs.isSuccess, "\(vector.name): PHP \(theirs.summary)") }
                compared += 1
            }
            serve.stop()
            php.stop()
            #expect(try AppDatabase.open(path: path, access: .readOnly).check().isEmpty)
        }
        try await poster.shutdown()
        #expect(compared == 139)
    }

    @Test("bad input: oversized, malformed, unknown app, wrong type, slow client: each answered, nothing stored, still serving")
    func badInput() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let serve = try ServeProcess(store: path, folder: folder, extra: ["--read-timeout", "1", "--max-body", "4096"])
        let huge = Self.callback("20260301000009", overrides: ["ext": String(repeating: "x", count: 10_000)])
        #expect(try Self.curl(serve.url, huge).hasSuffix(" 413"))
        #expect(try Self.curl(serve.url, "%%%&&==&sign[]=1&=&a[b=c") == "fail: unknown app 200")
        #expect(try Self.curl(serve.url, Self.callback("20260301000010", overrides: ["client_id": "nope"])) == "fail: unknown app 200")
        #expect(try Self.curl(serve.url, Self.callback("20260301000011"), type: "application/json").hasSuffix(" 415"))
        #expect(try Self.curl(serve.url, "") == "fail: unknown app 200")
        #expect(try shell("curl -s --max-time 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:\(serve.port)/nowhere").output == "404")
        // `//` is no route (the router read it as `/` and answered another path); the server keeps serving.
        #expect(try shell("curl -s --path-as-is --max-time 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:\(serve.port)//callback").output == "404")
        #expect(try shell("curl -s --path-as-is --max-time 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:\(serve.port)/inApps//v1/transactions/1").output == "404")
        // A slow client: the headers promise 200 bytes, 10 arrive, then nothing.
        let slow = rawExchange(
            port: serve.port,
            "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\norder_id=1")
        #expect(slow.contains("408"), "\(slow)")
        #expect(try Self.counts(path) == (0, 0), "nothing stored")
        #expect(try Self.curl(serve.url, Self.callback("20260301000012")) == "success 200", "still serving")
        #expect(try Self.counts(path) == (1, 1))
        #expect(serve.stop() == 0)
    }

    @Test("one connection, requests pipelined: callbacks and other requests answered in the order sent, closed after 'Connection: close'")
    func pipelined() throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        let serve = try ServeProcess(store: path, folder: folder)
        func post(_ body: String, close: Bool = false) -> String {
            "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + (close ? "Connection: close\r\n" : "") + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        }
        // All four written at once: the second callback is read while the first waits for its commit.
        let answer = rawExchange(
            port: serve.port,
            post(Self.callback("20260301000031")) + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                + post(Self.callback("20260301000032", key: "guessed")) + post(Self.callback("20260301000031"), close: true))
        let bodies = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { reply in
            (reply.prefix(3), reply.components(separatedBy: "\r\n\r\n").last ?? "")
        }
        #expect(bodies.map { "\($0.0) \($0.1)" } == ["200 success", "200 ok\n", "200 fail: bad sign", "200 success"], "\(answer)")
        #expect(answer.lowercased().contains("connection: close"), "the last reply says it closes, and the read above ended")
        #expect(try Self.counts(path) == (2, 1))
        #expect(serve.stop() == 0)
    }

    @Test("kill -9 under load loses no callback answered success, and SIGTERM lets requests in flight finish")
    func killUnderLoad() async throws {
        let folder = TemporaryFolder()
        let path = try galaxyStore(folder)
        for signal in [SIGKILL, SIGTERM] {
            let serve = try ServeProcess(store: path, folder: folder)
            let url = serve.url
            // Ids no payment run hands out, as a game server's load would carry.
            let base = Int(OrderNumbers.outsideRuns.lowerBound) + (signal == SIGKILL ? 0 : 1_000_000)
            let poster = CallbackPoster(timeout: 5, connectionsPerHost: 16)
            let load = Task {
                await LoadClient.run(poster: poster, url: url, workers: 16, perWorker: 400, firstOrder: base, repeatEvery: 5)
            }
            try await Task.sleep(nanoseconds: 700_000_000)
            let status = serve.stop(signal)
            let result = await load.value
            try await poster.shutdown()
            #expect(result.successes.count > 50, "the load ran before the stop")
            if signal == SIGTERM {
                #expect(status == 0)
                #expect(serve.output.hasSuffix("storedesk serve: stopped\n"), "\(serve.output)")
            }
            let store = try AppDatabase.open(path: path, access: .readOnly)
            let granted = Set(try store.gameServerGrants().map(\.orderId))
            let lost = result.successes.subtracting(granted)
            #expect(lost.isEmpty, "answered success but not in the store: \(lost.prefix(5))")
            #expect(try store.check().isEmpty)
        }
        // Stopped under load again, a few times: every stop graceful, nothing answered success lost, and
        // nothing printed but the two lines (NIO once printed that a task was scheduled on a loop the
        // server had shut down).
        for round in 0..<4 {
            let serve = try ServeProcess(store: path, folder: folder)
            let base = Int(OrderNumbers.outsideRuns.lowerBound) + 2_000_000 + round * 100_000
            let poster = CallbackPoster(timeout: 5, connectionsPerHost: 16)
            let url = serve.url
            let load = Task { await LoadClient.run(poster: poster, url: url, workers: 16, perWorker: 200, firstOrder: base, repeatEvery: 5) }
            try await Task.sleep(nanoseconds: 300_000_000)
            let status = serve.stop(SIGTERM)
            let result = await load.value
            try await poster.shutdown()
            #expect(status == 0)
            let lines = serve.output.split(separator: "\n")
            #expect(lines.count == 2 && lines.last == "storedesk serve: stopped", "round \(round): \(serve.output)")
            let granted = Set(try AppDatabase.open(path: path, access: .readOnly).gameServerGrants().map(\.orderId))
            #expect(result.successes.subtracting(granted).isEmpty, "round \(round)")
        }
        // The store still serves, and the conformance check of it stays clean.
        let serve = try ServeProcess(store: path, folder: folder)
        let check = try Binary.run(["callback", "check", serve.url, "--app", "app_galaxy", "--db", path], folder: folder)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("all 15 rules hold"))
        serve.stop()
        // The check's order ids lie above every payment run's block (run N numbers N × 10^10 + k).
        let checked = try await AppDatabase.open(path: path, access: .readOnly).reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT CAST(order_id AS INTEGER) FROM game_server_callback WHERE body LIKE '%user_id=storedesk-check%'")
        }
        #expect(!checked.isEmpty)
        #expect(checked.allSatisfy { OrderNumbers.outsideRuns.contains($0) && $0 > OrderNumbers.maxRun * OrderNumbers.blockSize + OrderNumbers.blockSize - 1 })
    }
}

/// A bounded load client: `workers` tasks, each POSTing `perWorker` callbacks with fresh order ids (and
/// every `repeatEvery`th a repeat of its previous one), stopping at the first failure to connect.
enum LoadClient {
    struct Result: Sendable {
        var successes: Set<String> = []
        var sent = 0
        var latencies: [Int] = []
    }

    static func run(poster: CallbackPoster, url: String, workers: Int, perWorker: Int, firstOrder: Int, repeatEvery: Int) async -> Result {
        await withTaskGroup(of: Result.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var result = Result()
                    var previous: String?
                    for index in 0..<perWorker {
                        let orderId: String
                        if index % repeatEvery == repeatEvery - 1, let previous {
                            orderId = previous
                        } else {
                            orderId = String(firstOrder + worker * perWorker + index)
                        }
                        let reply = await poster.post(ServeTests.callback(orderId), to: url)
                        result.sent += 1
                        result.latencies.append(reply.latencyMicros)
                        if reply.isSuccess { result.successes.insert(orderId) }
                        if !reply.wasAnswered { break }
                        previous = orderId
                    }
                    return result
                }
            }
            var total = Result()
            for await part in group {
                total.successes.formUnion(part.successes)
                total.sent += part.sent
                total.latencies += part.latencies
            }
            return total
        }
    }
}
