import Foundation
import StoreDeskStoreAPI

/// Where a team store lives: `postgres://USER@HOST:PORT/DB?sslmode=…` (also `postgresql://`), as libpq
/// writes it. A password never comes from the address (it would sit in shell history and `ps`): it comes
/// from the file `passfile=` names, else `PGPASSFILE`, else `~/.pgpass`, in libpq's format.
public struct PostgresAddress: Sendable, Hashable, CustomStringConvertible {
    /// libpq's `sslmode`, the values StoreDesk acts on.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, else plain (libpq's default).
        case prefer
        /// TLS, or no connection; the certificate is not checked.
        case require
        /// TLS with a certificate signed by a trusted root (`sslrootcert`, else the system's).
        case verifyCA = "verify-ca"
        /// As `verify-ca`, and the certificate names the host.
        case verifyFull = "verify-full"
    }

    public var user: String
    public var host: String
    public var port: Int
    public var database: String
    public var tls: TLSMode
    /// `sslrootcert=`: the roots a `verify-*` mode trusts.
    public var rootCertificate: String?
    /// `passfile=`: where the password is read.
    public var passfile: String?
    /// `application_name=`.
    public var applicationName: String?

    /// Whether `text` is meant as a PostgreSQL address rather than a file path.
    public static func names(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads an address; every refusal is one line naming what was wrong (never echoing a password).
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard Self.names(text), let components = URLComponents(string: text) else {
            throw StoreError.invalidArgument("not a PostgreSQL address: expected postgres://USER@HOST:PORT/DATABASE")
        }
        if components.password != nil {
            throw StoreError.invalidArgument(
                "a password in the store's address is refused (it would be seen in ps and shell history): put it in ~/.pgpass, PGPASSFILE or a file named by passfile=")
        }
        guard let host = components.host, !host.isEmpty else {
            throw StoreError.invalidArgument("the PostgreSQL address names no host: expected postgres://USER@HOST:PORT/DATABASE")
        }
        self.host = host
        port = components.port ?? Int(environment["PGPORT"] ?? "") ?? 5432
        guard (1...65535).contains(port) else { throw StoreError.invalidArgument("the PostgreSQL port \(port) is out of range (1-65535)") }
        let name = components.percentEncodedPath.dropFirst().removingPercentEncoding ?? ""
        user = components.user?.removingPercentEncoding ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
        database = name.isEmpty ? (environment["PGDATABASE"] ?? user) : name
        tls = .prefer
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                if value == "allow" {
                    tls = .prefer
                } else if let mode = TLSMode(rawValue: value) {
                    tls = mode
                } else {
                    throw StoreError.invalidArgument(
                        "sslmode '\(value)' is not one of disable, allow, prefer, require, verify-ca, verify-full")
                }
            case "sslrootcert": rootCertificate = value
            case "passfile": passfile = value
            case "application_name": applicationName = value
            case "password":
                throw StoreError.invalidArgument(
                    "a password in the store's address is refused (it would be seen in ps and shell history): put it in ~/.pgpass, PGPASSFILE or a file named by passfile=")
            case "connect_timeout", "target_session_attrs": break
            default: throw StoreError.invalidArgument("the PostgreSQL address has an option StoreDesk does not know: '\(item.name)'")
            }
        }
        if passfile == nil { passfile = environment["PGPASSFILE"] }
        if passfile == nil, let home = environment["HOME"] { passfile = home + "/.pgpass" }
    }

    /// The address as it is shown: never a password (it has none), and no file paths of secrets.
    public var description: String {
        let userPart = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(userPart)@\(hostPart):\(port)/\(database)"
    }

    /// The password for this address from its password file (libpq's `.pgpass` lines:
    /// `host:port:database:user:password`, `*` for any, `\:` and `\\` escaped), or nil when the file is
    /// missing or has no line for it. libpq ignores a file others can read; so does this.
    public func password() throws -> String? {
        guard let passfile, let data = FileManager.default.contents(atPath: passfile) else { return nil }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: passfile),
            let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0
        {
            throw StoreError.invalidArgument(
                "\(passfile) can be read by others (mode \(String(mode, radix: 8))): chmod 600 it, as libpq asks")
        }
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) where !line.hasPrefix("#") {
            let fields = Self.passfileFields(String(line))
            guard fields.count == 5 else { continue }
            let wanted = [host, String(port), database, user]
            let matches = zip(fields.prefix(4), wanted).allSatisfy { field, value in
                field == "*" || field == value || (field == "localhost" && value == "127.0.0.1")
            }
            if matches { return fields[4] }
        }
        return nil
    }

    /// One `.pgpass` line split at unescaped colons, escapes removed.
    static func passfileFields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
