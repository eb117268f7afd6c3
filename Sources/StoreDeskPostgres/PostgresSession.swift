import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoreDeskStoreAPI

/// One connection to the team store's server, used by one caller at a time. The store's protocols are
/// synchronous, so a call waits on PostgresNIO's future on the caller's own thread: never an event loop's,
/// never Swift's cooperative pool (the console runs store calls off its render loop). A connection the
/// server dropped is made again on the next call; a call that was in flight when it dropped fails with one
/// line ("the connection … was lost"), and a transaction in flight is rolled back by the server, so nothing
/// is half written.
final class PostgresSession: @unchecked Sendable {
    let address: PostgresAddress
    private let lock = NSLock()
    private var connection: PostgresConnection?
    private let logger = Logger(label: "storedesk.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private var nextId = 1

    /// Whether every connection it opens is read-only (`default_transaction_read_only`, set at its start, so
    /// a connection made again after a drop is read-only too).
    let readOnly: Bool

    init(address: PostgresAddress, readOnly: Bool = false) throws {
        self.address = address
        self.readOnly = readOnly
        _ = try withConnection { _ in }
    }

    deinit { try? connection?.close().wait() }

    /// Closes the connection (the next call opens another).
    func close() {
        lock.lock()
        defer { lock.unlock() }
        try? connection?.close().wait()
        connection = nil
    }

    /// Runs `body` on the open connection (opening one if needed), under the session's lock.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        do {
            if connection == nil || connection!.isClosed { connection = try open() }
            return try body(connection!)
        } catch {
            if connection?.isClosed == true { connection = nil }
            throw describe(error)
        }
    }

    /// The rows of one statement; `query` binds its values (never spliced into the SQL).
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try withConnection { connection in Array(try connection.query(query, logger: logger).wait()) }
    }

    /// Runs one statement and returns how many rows it touched.
    @discardableResult
    func run(_ query: PostgresQuery) throws -> Int {
        try withConnection { connection in try connection.query(query, logger: logger).wait().metadata.rows ?? 0 }
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws (or when the
    /// connection is lost, by the server).
    func transaction<T>(readOnly: Bool = false, _ body: (Transaction) throws -> T) throws -> T {
        try withConnection { connection in
            _ = try connection.query(readOnly ? "BEGIN READ ONLY" : "BEGIN", logger: logger).wait()
            do {
                let result = try body(Transaction(connection: connection, logger: logger))
                _ = try connection.query("COMMIT", logger: logger).wait()
                return result
            } catch {
                if !connection.isClosed { _ = try? connection.query("ROLLBACK", logger: logger).wait() }
                throw error
            }
        }
    }

    /// `body`'s statements on the open connection, each its own transaction (no `BEGIN`): for a read of one
    /// statement, which needs no snapshot beyond its own.
    func autocommit<T>(_ body: (Transaction) throws -> T) throws -> T {
        try withConnection { connection in try body(Transaction(connection: connection, logger: logger)) }
    }

    /// The statements of one transaction, on its connection.
    struct Transaction {
        let connection: PostgresConnection
        let logger: Logger

        func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
            Array(try connection.query(query, logger: logger).wait())
        }

        @discardableResult
        func run(_ query: PostgresQuery) throws -> Int {
            try connection.query(query, logger: logger).wait().metadata.rows ?? 0
        }
    }

    private func open() throws -> PostgresConnection {
        let tls: PostgresConnection.Configuration.TLS
        switch address.tls {
        case .disable: tls = .disable
        case .prefer, .require, .verifyCA, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            switch address.tls {
            case .verifyFull: configuration.certificateVerification = .fullVerification
            case .verifyCA: configuration.certificateVerification = .noHostnameVerification
            default: configuration.certificateVerification = .none
            }
            if let root = address.rootCertificate {
                // Said in words here: NIOSSL's own error for a missing file reads `noSuchFilesystemObject`.
                guard FileManager.default.isReadableFile(atPath: root) else {
                    throw StoreError.invalidArgument("sslrootcert=\(root): no such file, or it cannot be read")
                }
                configuration.trustRoots = .file(root)
            }
            let context = try NIOSSLContext(configuration: configuration)
            tls = address.tls == .prefer ? .prefer(context) : .require(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: address.host, port: address.port, username: address.user, password: try address.password(),
            database: address.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        if address.tls == .verifyFull { configuration.options.tlsServerName = address.host }
        if let name = address.applicationName { configuration.options.additionalStartupParameters.append(("application_name", name)) }
        if readOnly { configuration.options.additionalStartupParameters.append(("default_transaction_read_only", "on")) }
        let id = nextId
        nextId += 1
        return try PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
        ).wait()
    }

    /// An error of the connection or the server as one line naming the store, never the statement; any
    /// other error (a rule's refusal) as it is.
    func describe(_ error: any Error) -> any Error { Self.describe(error, address: address) }

    /// `describe` for a store at `address`, with or without a session.
    static func describe(_ error: any Error, address: PostgresAddress) -> any Error {
        if error is StoreError { return error }
        let store = address.description
        guard let error = error as? PSQLError else {
            if let io = error as? IOError { return StoreError.unreachable(path: store, reason: "cannot reach the server: \(io.description)") }
            if error is NIOSSLError {
                return StoreError.database(path: store, message: "the TLS handshake failed (sslmode=\(address.tls.rawValue)): \(error)")
            }
            if let connect = error as? NIOConnectionError {
                let reason = connect.connectionErrors.first.map { "\($0.error)" } ?? "\(connect)"
                return StoreError.unreachable(path: store, reason: "cannot reach the server: \(Self.plain(reason))")
            }
            if error is ChannelError { return StoreError.unreachable(path: store, reason: Self.lost) }
            // The store's own refusals (a rule, an unknown user) pass as they are.
            return error
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "the server refused the request"
            switch state {
            case "28P01":
                return StoreError.database(path: store, message: "the server refused user '\(address.user)': wrong password (\(address.passfile ?? "no password file"))")
            case "28000":
                return StoreError.database(path: store, message: "the server refused user '\(address.user)': \(message)")
            case "3D000": return StoreError.database(path: store, message: "the server has no database '\(address.database)'")
            case "57P01", "57P02", "57P03":
                return StoreError.unreachable(path: store, reason: "the server is shutting down or starting: \(message)")
            case "25006": return StoreError.readOnlyFile(path: store)
            default: return StoreError.database(path: store, message: message)
            }
        case .authMechanismRequiresPassword:
            return StoreError.database(
                path: store,
                message: "the server asks a password for user '\(address.user)' and none was found in \(address.passfile ?? "~/.pgpass") (nor PGPASSFILE, nor passfile=)")
        case .connectionError:
            let reason = error.underlying.map { Self.plain("\($0)") } ?? "no answer"
            return StoreError.unreachable(path: store, reason: "cannot reach the server: \(reason)")
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            return StoreError.unreachable(path: store, reason: Self.lost)
        case .sslUnsupported:
            return StoreError.database(path: store, message: "the server does not offer TLS, and sslmode=\(address.tls.rawValue) asks for it")
        default:
            return StoreError.database(path: store, message: "the server's reply could not be read (\(error.code))")
        }
    }

    /// A connection dropped under a step. Only the console goes on to a next step (and says
    /// `reconnecting…` in its header until the server is back); a one-shot command stops here.
    static let lost = "the connection to the server was lost"

    /// A NIO error's text on one line, without its Swift type noise.
    static func plain(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        if line.contains("Connection refused") || line.contains("connectionRefused") { return "connection refused" }
        if line.contains("connectTimeout") || line.contains("timed out") { return "no answer in 10 seconds" }
        if line.contains("Connection reset") { return "the connection was reset" }
        return line
    }
}
