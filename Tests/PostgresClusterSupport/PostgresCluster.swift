import Foundation

/// A throwaway PostgreSQL cluster of the test's own: Debian's server binaries (`make test` installs
/// `postgresql` when missing), `initdb` in a temporary folder, listening on 127.0.0.1 at a free port and
/// on a socket in that folder, trust authentication for its one superuser. `stop()` (also run when the
/// value goes away, so a failing test stops it too) shuts the server down at once and removes the folder.
///
/// PostgreSQL refuses to run as root, and CI runs as root: then the cluster belongs to the `postgres`
/// user the Debian package made, and its commands run through `runuser`.
public final class PostgresCluster: @unchecked Sendable {
    public let folder: URL
    public let port: Int
    /// The superuser: the user the server runs as.
    public let user: String
    private let bin: URL
    private var stopped = false
    /// The template databases built on this cluster (`template(_:build:)`).
    let templates = Templates()

    /// The newest server version installed under /usr/lib/postgresql, or nil when none is.
    public static var binaries: URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { root.appendingPathComponent("\($0)/bin") }
    }

    public static var runsAsRoot: Bool { getuid() == 0 }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The address the server listens on (127.0.0.1, or an address in `namespace`).
    public let host: String
    /// The network namespace the server runs in (`ip netns exec`), nil for this machine's own.
    public let namespace: String?

    /// - Parameters:
    ///   - host: the address to listen on; with `namespace`, an address of that namespace.
    ///   - namespace: a network namespace to run the server in (a second machine, as far as the network
    ///     goes). The test then talks to it over its socket in `folder`, which every namespace can reach.
    public init(listen host: String = "127.0.0.1", namespace: String? = nil, port: Int? = nil) throws {
        guard let bin = Self.binaries else {
            throw Failure(description: "no PostgreSQL server under /usr/lib/postgresql (make test installs Debian's postgresql)")
        }
        self.bin = bin
        user = Self.runsAsRoot ? "postgres" : (ProcessInfo.processInfo.environment["USER"] ?? NSUserName())
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-pg-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.host = host
        self.namespace = namespace
        self.port = try port ?? Self.freePort()
        Self.running.add(self)
        do {
            if Self.runsAsRoot { try Self.run("/bin/chown", ["postgres:postgres", folder.path]) }
            let data = folder.appendingPathComponent("data").path
            try asServerUser("initdb", ["-D", data, "-U", user, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"])
            try startServer()
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The clusters still running, stopped when the process exits: a cluster a suite keeps for all its
    /// tests (held by a static, never released) would otherwise outlive the test process.
    private final class Running: @unchecked Sendable {
        private let lock = NSLock()
        private var clusters: [ObjectIdentifier: () -> Void] = [:]
        private var hooked = false

        func add(_ cluster: PostgresCluster) {
            let stop: () -> Void = { [weak cluster] in cluster?.stop() }
            let first = lock.withLock {
                clusters[ObjectIdentifier(cluster)] = stop
                defer { hooked = true }
                return !hooked
            }
            if first { atexit { PostgresCluster.running.stopAll() } }
        }

        func remove(_ cluster: PostgresCluster) { lock.withLock { _ = clusters.removeValue(forKey: ObjectIdentifier(cluster)) } }

        func stopAll() {
            let all = lock.withLock { Array(clusters.values) }
            for stop in all { stop() }
        }
    }

    private static let running = Running()

    /// `postgres://USER@HOST:PORT/DB`.
    public func url(database: String = "postgres", user: String? = nil) -> String {
        "postgres://\(user ?? self.user)@\(host):\(port)/\(database)"
    }

    /// Runs SQL through `psql` over TCP, one statement or a script, and returns what it printed
    /// (unaligned, tuples only); a failing statement throws with psql's message.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Self.run(
            bin.appendingPathComponent("psql").path,
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", adminHost, "-p", "\(port)", "-U", user, "-d", database, "-c", sql])
    }

    /// Makes a login role that must give `password` over TCP (SCRAM), where every other role is trusted:
    /// for tests of a wrong or missing password.
    public func requirePassword(role: String, password: String, from network: String = "127.0.0.1/32") throws {
        try psql("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
        let hba = folder.appendingPathComponent("data/pg_hba.conf")
        let rules = try String(contentsOf: hba, encoding: .utf8)
        try ("host all \(role) \(network) scram-sha-256\n" + rules).write(to: hba, atomically: false, encoding: .utf8)
        try psql("SELECT pg_reload_conf()")
        Thread.sleep(forTimeInterval: 0.2)
    }

    /// Starts the server on the cluster's data, address and port. Started in the background, and waited for
    /// by asking it (at most 30 seconds): the server keeps every descriptor its starter inherits, and
    /// Foundation's `Process` takes a child for running as long as one of its descriptors is open, so the
    /// starter closes them first.
    private func startServer() throws {
        let data = folder.appendingPathComponent("data").path
        let log = folder.appendingPathComponent("server.log").path
        try Self.launchClosingDescriptors(
            serverCommand("pg_ctl", ["-D", data, "-l", log, "-o", "-c listen_addresses=\(host) -p \(port) -k \(folder.path) -c fsync=off", "start"]))
        var waited = 0
        while !isAccepting {
            guard waited < 300 else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw Failure(description: "the PostgreSQL server did not start in 30 seconds: \(said.suffix(500))")
            }
            Thread.sleep(forTimeInterval: 0.1)
            waited += 1
        }
    }

    /// The server goes away as a crashed or rebooted server does (`-m immediate`: every connection dropped
    /// at once), keeps its data, and comes back on the same port when `whileDown` returns.
    public func restart(whileDown: () throws -> Void) throws {
        let data = folder.appendingPathComponent("data").path
        try asServerUser("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"])
        do {
            try whileDown()
        } catch {
            try startServer()
            throw error
        }
        try startServer()
    }

    /// Whether the server answers on its port.
    public var isAccepting: Bool {
        (try? Self.run(bin.appendingPathComponent("pg_isready").path, ["-q", "-h", adminHost, "-p", "\(port)", "-t", "1"])) != nil
    }

    /// Where the test reaches the server: its address, or (in another namespace) its socket's folder.
    private var adminHost: String { namespace == nil ? host : folder.path }

    /// Shuts the server down at once (`-m immediate`: the data is thrown away) and removes the folder.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        Self.running.remove(self)
        let data = folder.appendingPathComponent("data").path
        if FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
            _ = try? asServerUser("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"])
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// One of the server's own commands, as the user the server runs as: the program and its arguments.
    private func serverCommand(_ command: String, _ arguments: [String]) -> [String] {
        let path = bin.appendingPathComponent(command).path
        let inNamespace = namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? []
        return inNamespace + (Self.runsAsRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments)
    }

    @discardableResult
    private func asServerUser(_ command: String, _ arguments: [String]) throws -> String {
        let line = serverCommand(command, arguments)
        return try Self.run(line[0], Array(line.dropFirst()))
    }

    /// Starts `command` through bash, which first closes every descriptor above stderr, and does not
    /// wait for it.
    static func launchClosingDescriptors(_ command: [String]) throws {
        let process = Process()
        // bash: dash's `exec` takes only one-digit descriptors.
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let closing = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec "$@""#
        process.arguments = ["-c", closing, "bash"] + command
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Runs a program to its end (at most 60 seconds) and returns its output; a non-zero exit throws
    /// with what it said.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C.UTF-8"
        environment["PGCONNECT_TIMEOUT"] = "5"
        process.environment = environment
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-pg-out-" + UUID().uuidString)
        FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw Failure(description: "\(URL(fileURLWithPath: program).lastPathComponent) failed: \(text.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return text
    }

    /// A TCP port on 127.0.0.1 nobody listens on now (the kernel's pick for port 0).
    public static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "cannot open a socket to find a free port") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "cannot bind 127.0.0.1 to find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

