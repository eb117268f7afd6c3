import Foundation

/// Everything that can go wrong with a store file, each said in one line that names the file or value.
public enum StoreError: Error, Equatable, CustomStringConvertible, Sendable {
    case missing(path: String)
    case notSQLite(path: String)
    case notAStore(path: String)
    case newerSchema(path: String, unknown: [String])
    case olderSchema(path: String, missing: [String])
    case readOnlyFile(path: String)
    case locked(path: String)
    case exists(path: String)
    case dataFile(path: String, message: String)
    case unknownUser(id: String)
    case invalidArgument(String)
    case database(path: String, message: String)
    /// A payment run's commit was refused: it ended, or another process took its work over.
    case runEnded(path: String, run: Int64, takenOverBy: Int64?)

    public var description: String {
        switch self {
        case .missing(let path): "no store at \(path): create one with `storedesk seed --db \(path)`"
        case .notSQLite(let path): "\(path) is not a SQLite database"
        case .notAStore(let path): "\(path) is a SQLite database but not a StoreDesk store (no StoreDesk schema)"
        case .newerSchema(let path, let unknown):
            "\(path) was written by a newer StoreDesk (unknown migrations: \(unknown.joined(separator: ", "))): upgrade storedesk"
        case .olderSchema(let path, let missing):
            "\(path) has an older schema (needs \(missing.joined(separator: ", "))): rerun with --migrate to upgrade it"
        case .readOnlyFile(let path): "\(path) is read-only: use --readonly to inspect it"
        case .locked(let path): "\(path) is locked by another process: try again when it is done"
        case .exists(let path): "\(path) already exists: pass --force to replace it"
        case .dataFile(let path, let message): "\(path): \(message)"
        case .unknownUser(let id): "no user with id '\(id)'"
        case .invalidArgument(let message): message
        case .database(let path, let message): "\(path): \(message)"
        case .runEnded(let path, let run, let by?):
            "\(path): payment run \(run) was taken over by run \(by), which found it gone: this process stops writing"
        case .runEnded(let path, let run, nil): "\(path): payment run \(run) has ended: it writes nothing more"
        }
    }
}
