import Foundation
import StoreDeskSQLite
import Testing

/// Runs the real `storedesk` binary that `make test` built.
enum Binary {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var path: String {
        if let override = ProcessInfo.processInfo.environment["STOREDESK_BIN"] { return override }
        return repository.appendingPathComponent(".build/debug/storedesk").path
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the binary with a private HOME so the default store is the test's own. A run that outlives
    /// `timeout` seconds is killed and reported with status -1 (a hang is a failure, not a stuck suite).
    static func run(
        _ arguments: [String], home homeFolder: TemporaryHome, stdin: String? = nil, environment: [String: String] = [:],
        timeout: Double = 120, binary: String = path
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let home = homeFolder.url
        var env = ["HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
                   "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "LANG": "C.UTF-8", "TZ": "UTC",
                   "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        env.merge(environment) { $1 }
        process.environment = env
        // Files, not pipes: a hung child keeps a pipe open and its reader waiting.
        let outFile = home.appendingPathComponent("stdout-" + UUID().uuidString)
        let errFile = home.appendingPathComponent("stderr-" + UUID().uuidString)
        // Made empty first (a failure names the file in its error); the child writes through handles on them.
        try Data().write(to: outFile)
        try Data().write(to: errFile)
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        let out = try FileHandle(forWritingTo: outFile), err = try FileHandle(forWritingTo: errFile)
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        var status: Int32
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            status = -1
        } else {
            process.waitUntilExit()
            status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        }
        try out.close()
        try err.close()
        return Result(
            status: status, stdout: (try? String(contentsOf: outFile, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "")
    }
}

final class TemporaryHome {
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-e2e-" + UUID().uuidString)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    var defaultStore: String { url.appendingPathComponent("data/storedesk/storedesk.sqlite").path }

    /// The demo store at the default store's place, as the first command run in an empty home builds it:
    /// a copy of the one this test process built (`CLITests` runs that first build through the binary).
    /// A home that has its store already keeps it.
    @discardableResult
    func withDemoStore() throws -> TemporaryHome {
        let store = URL(fileURLWithPath: defaultStore)
        guard !FileManager.default.fileExists(atPath: store.path) else { return self }
        try FileManager.default.createDirectory(at: store.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DemoDatasetLoader.copyOfEmbeddedDemo(at: store.path)
        return self
    }
}

/// Runs a shell command and returns its output, through `posix_spawn` and `waitpid` and a file
/// rather than Foundation's `Process` and a pipe: a daemon the command starts (the tmux server)
/// inherits descriptors and would otherwise keep the caller waiting forever.
@discardableResult
func shell(_ command: String) throws -> (status: Int32, output: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-shell-" + UUID().uuidString).path
    defer { try? FileManager.default.removeItem(atPath: file) }
    let script = "(" + command + ") </dev/null >'" + file + "' 2>&1"
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(script), nil]
    defer { for arg in argv { free(arg) } }
    // Start from a clean signal mask: the test runner's threads block signals the console must hear.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let spawned = posix_spawn(&pid, "/bin/sh", nil, &attributes, argv, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exit, (try? String(contentsOfFile: file, encoding: .utf8)) ?? "")
}

/// Seeded stores this test process makes once through the binary and hands out as copies: seeding
/// 200,000 players costs seconds, copying the file a fraction of one. The originals live in a folder of
/// the process's own, removed when it exits.
enum SeededStores {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var made: [String: String] = [:]
    private static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-seeded-" + UUID().uuidString)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: SeededStores.folder) }
        return url
    }()

    /// A copy at `path` of the store `seed --users USERS --seed SEED` makes (seeded the first time a test
    /// asks for it, in this process).
    static func copy(users: Int, seed: Int, to path: String, home: TemporaryHome) throws {
        let original = try lock.withLock { () throws -> String in
            let key = "users-\(users)-seed-\(seed)"
            if let made = made[key] { return made }
            let file = folder.appendingPathComponent(key + ".sqlite").path
            // A seed that failed before leaves nothing this one would refuse to write over.
            try? FileManager.default.removeItem(atPath: file)
            let seeded = try Binary.run(["seed", "--users", "\(users)", "--seed", "\(seed)", "--db", file], home: home, timeout: 600)
            try #require(seeded.status == 0, "\(seeded.stderr)")
            made[key] = file
            return file
        }
        try FileManager.default.copyItem(atPath: original, toPath: path)
    }
}
