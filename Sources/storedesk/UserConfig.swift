import Foundation
import Synchronization
import StoreDeskCore
import TOMLKit

/// The user's defaults: `$XDG_CONFIG_HOME/storedesk/config.toml`, else `~/.config/storedesk/config.toml`.
///
///     actor = "mia"            # the name the audit log records (else STOREDESK_ACTOR, else the login name)
///     role = "support"         # operator, support or developer
///     theme = "light"          # a name from `storedesk themes list`, or a .toml file
///     store = "/srv/desk.sqlite"
///
/// A flag beats the environment, which beats the file, which beats the built-in default. A file StoreDesk
/// cannot use (not TOML, an unknown key, a value of the wrong type, a role that is none) is said in one
/// line on stderr naming the file and the key, and ignored whole: everything starts on the defaults.
struct UserConfig: Equatable, Sendable {
    /// The keys a file may hold.
    enum Key: String, CaseIterable {
        case actor, role, theme, store
    }

    /// Where the file is (or would be).
    var path: String
    /// Whether a file was there to read.
    var exists = false
    /// Why the file was ignored, one line naming the key; nil when it was read (or there is none).
    var problem: String?
    var actor: String?
    var role: StaffRole?
    var theme: String?
    var store: String?

    /// The file's place: `$XDG_CONFIG_HOME` when it is an absolute path, else `$HOME/.config`.
    static func path(environment value: (String) -> String?) -> String {
        let base =
            value("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((value("HOME").flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) as NSString).appendingPathComponent(".config")
        return ((base as NSString).appendingPathComponent("storedesk") as NSString).appendingPathComponent("config.toml")
    }

    /// Reads the file at `path`; a missing file is no file, an unusable one is ignored with its `problem`.
    static func load(path: String) -> UserConfig {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            // A symbolic link that leads nowhere (a loop, a missing target) is a file that cannot be read, said
            // as such, not a file that is not there.
            var link = stat()
            if lstat(path, &link) == 0 {
                return UserConfig(path: path, exists: true, problem: "\(path): a symbolic link that leads to no file (a loop, or a missing target); using the defaults")
            }
            return UserConfig(path: path)
        }
        guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
            return UserConfig(path: path, exists: true, problem: "\(path): cannot be read; using the defaults")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return UserConfig(path: path, exists: true, problem: "\(path): not UTF-8 text; using the defaults")
        }
        return parse(text, path: path)
    }

    /// The values of a file's text; on the first problem, none of them.
    static func parse(_ text: String, path: String) -> UserConfig {
        var config = UserConfig(path: path, exists: true)
        func refused(_ message: String) -> UserConfig {
            UserConfig(path: path, exists: true, problem: "\(path): \(message); using the defaults")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return refused("line \(error.source.begin.line): not TOML (\(oneLine(error.description)))")
        } catch {
            return refused("not TOML (\(oneLine(String(describing: error))))")
        }
        for key in table.keys.sorted() {
            guard let known = Key(rawValue: key) else {
                return refused("unknown key '\(key.echoed)' (known: \(Key.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let value = table[key]?.string else {
                return refused("key '\(key)' must be a string, got \(table[key].map { "\($0.type)" } ?? "nothing")")
            }
            guard !value.isEmpty else { return refused("key '\(key)' is empty") }
            switch known {
            case .actor: config.actor = value
            case .theme: config.theme = value
            case .store: config.store = value
            case .role:
                guard let role = StaffRole(rawValue: value) else {
                    return refused(
                        "key 'role': '\(value.echoed)' is not a role (\(StaffRole.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                config.role = role
            }
        }
        return config
    }

    private static let loaded = Mutex<UserConfig?>(nil)

    /// This process's file, read once on first use; its problem, if any, is said then, once.
    static var current: UserConfig {
        let (config, firstUse) = loaded.withLock { loaded in
            if let loaded { return (loaded, false) }
            let config = load(path: path(environment: environmentValue))
            loaded = config
            return (config, true)
        }
        if firstUse, let problem = config.problem { warn(problem) }
        return config
    }
}

/// Where a value in force came from, most specific first.
enum ValueSource: String, Encodable {
    case flag, environment
    case configFile = "config file"
    case `default`
}
