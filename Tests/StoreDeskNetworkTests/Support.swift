import Foundation
import StoreDeskCore
@testable import StoreDeskSQLite
import Testing

/// A folder of its own for each test, removed when the test's value goes away.
final class TemporaryFolder: @unchecked Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-net-" + UUID().uuidString)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

enum Fixtures {
    /// A demo store built at `path`, opened as `serve` and `simulate` open it.
    static func demoStore(at path: String) throws -> AppDatabase {
        try DemoDatasetLoader.copyOfEmbeddedDemo(at: path)
        return try AppDatabase.open(path: path, access: .readWriteConcurrent)
    }

    /// The router every PHP game server of the tests runs (Tests/StoreDeskNetworkTests/GameServer/router.php).
    static var router: String {
        Bundle.module.url(forResource: "GameServer/router", withExtension: "php")?.path
            ?? Bundle.module.bundleURL.appendingPathComponent("GameServer/router.php").path
    }
}

/// A free loopback port: bind port 0, read what the kernel chose, close. (Another process could take it
/// before the caller binds; the callers retry.)
func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Sends `request` as raw bytes, then waits (at most 10 s) for whatever the server answers: a slow or
/// broken client's view of the server.
func rawExchange(port: Int, _ request: String) -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { return "" }
    let bytes = Array(request.utf8)
    _ = write(fd, bytes, bytes.count)
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count <= 0 { break }
        answer += buffer[0..<count]
    }
    return String(decoding: answer, as: UTF8.self)
}

/// Whether something answers HTTP on the port: one GET /healthz with a short timeout.
func answers(port: Int, path: String = "/healthz") -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 1, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { return false }
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    guard write(fd, request, request.count) == request.count else { return false }
    var buffer = [UInt8](repeating: 0, count: 64)
    return read(fd, &buffer, 64) > 0 && buffer.starts(with: Array("HTTP/1.".utf8))
}

/// Starts a server on a free loopback port and waits (at most `seconds`) until it answers HTTP there.
/// Another process can take the port between `freePort()` and the server's bind, so a server that dies
/// or never answers is killed and tried again on a new port, `attempts` times in all. `make` configures
/// the process for a port (its output goes nowhere); this runs it.
func launchListening(
    attempts: Int = 3, within seconds: Double, output: String? = nil, make: (Int) throws -> Process
) throws -> (port: Int, process: Process) {
    var lastError: (any Error)?
    for _ in 0..<attempts {
        let port = try freePort()
        let process = try make(port)
        if let output, FileManager.default.createFile(atPath: output, contents: nil), let file = FileHandle(forWritingAtPath: output) {
            process.standardOutput = file
            process.standardError = file
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        do {
            try process.run()
        } catch {
            lastError = error
            continue
        }
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && process.isRunning && !answers(port: port) { usleep(20_000) }
        if process.isRunning && answers(port: port) { return (port, process) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        lastError = POSIXError(.ETIMEDOUT)
    }
    throw lastError ?? POSIXError(.ETIMEDOUT)
}

/// A real PHP game server: Debian's php-cli running `router.php` under `php -S 127.0.0.1:PORT`, started
/// and stopped by the test, with its ledger in a folder of its own.
final class PHPGameServer: @unchecked Sendable {
    let port: Int
    let ledger: URL
    private let process: Process

    var url: String { "http://127.0.0.1:\(port)/callback" }

    /// Starts it and waits (at most 10 s) until it answers.
    init(keys: [String: String], breaking rule: String? = nil, folder: TemporaryFolder) throws {
        ledger = folder.url.appendingPathComponent("php-ledger-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: ledger, withIntermediateDirectories: true)
        let keysJSON = String(decoding: try JSONSerialization.data(withJSONObject: keys), as: UTF8.self)
        let ledgerPath = ledger.path
        let launched = try launchListening(within: 10) { port in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["php", "-n", "-d", "display_errors=0", "-S", "127.0.0.1:\(port)", Fixtures.router]
            var environment = ["STOREDESK_KEYS": keysJSON, "STOREDESK_LEDGER": ledgerPath, "PATH": "/usr/bin:/bin",
                               "PHP_CLI_SERVER_WORKERS": "1"]
            if let rule { environment["STOREDESK_BREAK"] = rule }
            process.environment = environment
            return process
        }
        port = launched.port
        process = launched.process
    }

    deinit { stop() }

    /// SIGKILL: the test runner's threads block SIGTERM, and its children inherit that mask.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The grants it made, one per order, as the router wrote them.
    func grants() throws -> [[String: String]] {
        let file = ledger.appendingPathComponent("ledger.jsonl")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return object.compactMapValues { $0 as? String }
        }
    }
}

/// The `storedesk` binary `make test` built (STOREDESK_BIN overrides).
enum Binary {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var path: String {
        ProcessInfo.processInfo.environment["STOREDESK_BIN"] ?? repository.appendingPathComponent(".build/debug/storedesk").path
    }

    /// Runs it to the end; stdout and stderr go through files (a server it starts keeps no pipe open).
    static func run(_ arguments: [String], folder: TemporaryFolder) throws -> (status: Int32, stdout: String, stderr: String) {
        let out = folder.path("out-" + UUID().uuidString), err = folder.path("err-" + UUID().uuidString)
        try Data().write(to: URL(fileURLWithPath: out))
        try Data().write(to: URL(fileURLWithPath: err))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ["HOME": folder.url.path, "XDG_DATA_HOME": folder.path("data"), "LANG": "C.UTF-8", "TZ": "UTC"]
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        )
    }
}

/// `storedesk serve` as a process of its own on a free loopback port, its request log in a file.
final class ServeProcess: @unchecked Sendable {
    let port: Int
    let log: String
    /// Its stdout and stderr (the request log is `log`).
    let outputPath: String
    let process: Process

    var url: String { "http://127.0.0.1:\(port)/callback" }

    /// Starts it and waits (at most 20 s) until /healthz answers.
    init(store: String, folder: TemporaryFolder, extra: [String] = []) throws {
        log = folder.path("serve-" + UUID().uuidString + ".log")
        outputPath = folder.path("serve-" + UUID().uuidString + ".out")
        let log = log
        let launched = try launchListening(within: 20, output: outputPath) { port in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Binary.path)
            process.arguments = ["serve", "--listen", "127.0.0.1:\(port)", "--db", store, "--log", log] + extra
            process.environment = ["HOME": folder.url.path, "LANG": "C.UTF-8", "TZ": "UTC"]
            return process
        }
        port = launched.port
        process = launched.process
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sends a signal and waits (at most 20 s) for the process to end; returns its status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// What it printed on stdout and stderr so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    var logLines: [String] {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

/// Runs a shell command (curl), returning its output; bounded by curl's own `--max-time`.
func shell(_ command: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// A store with the test app `app_galaxy` (the PHP vectors' app) and its products, beside the demo's.
func galaxyStore(_ folder: TemporaryFolder, key: String = "k3y-S3cr3t-2026", name: String = "store.sqlite") throws -> String {
    let path = folder.path(name)
    let store = try Fixtures.demoStore(at: path)
    try store.write { db in
        try db.execute(
            sql: """
                INSERT INTO app (id, name, bundle_id, app_key, currency_per_yuan, restore_ownership, grace_period_days)
                VALUES ('app_galaxy', 'Galaxy Quest', 'com.example.galaxy', ?, 10, 'transfer', 0)
                """, arguments: [key])
        for (id, price) in [("com.example.gems.60", 600), ("com.example.gems.300", 3000), ("com.example.tip", 99)] {
            try db.execute(
                sql: "INSERT INTO product (id, app_id, name, type, price_cents, currency) VALUES (?, 'app_galaxy', ?, 'consumable', ?, 'CNY')",
                arguments: [id, id, price])
        }
    }
    return path
}
