import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// `storedesk check`: SQLite's own integrity check plus the domain's invariants (`StoreInvariant`, each
/// rule's SQL written once for both backends).
public enum StoreCheck {
    public typealias Violation = StoreCheckViolation

    public static func run(_ db: Database) throws -> [Violation] {
        var violations: [Violation] = []
        for row in try String.fetchAll(db, sql: "PRAGMA integrity_check") where row != "ok" {
            violations.append(Violation(kind: "integrity", subject: "", message: row))
        }
        let foreignKeys: [Row]
        do {
            foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
            // "foreign key mismatch": a referenced table lost the key its references need (`schema_key_missing`).
            foreignKeys = []
            violations.append(
                Violation(
                    kind: "schema", subject: "foreign_key",
                    message: "cannot check foreign keys: \(error.message ?? "SQLite error \(error.resultCode.rawValue)")"))
        }
        for row in foreignKeys {
            let table: String = try row.decode(atIndex: 0)
            let rowid: Int64? = try row.decode(atIndex: 1)
            let parent: String = try row.decode(atIndex: 2)
            violations.append(
                Violation(
                    kind: "foreign_key", subject: table,
                    message: "\(table) row \(rowid.map(String.init) ?? "?") points at a missing \(parent)"))
        }
        // What every other read needs first: the schema's tables and columns, the values the records decode.
        violations += try decodingViolations(db)
        // The rules, written once for both backends (`StoreInvariant.sql`).
        for invariant in StoreInvariant.allCases {
            do {
                for row in try Row.fetchAll(db, sql: invariant.sql(.sqlite)) {
                    let subject: String = try row.decode(String?.self, atIndex: 0) ?? ""
                    let message: String = try row.decode(String?.self, atIndex: 1) ?? ""
                    violations.append(
                        Violation(
                            kind: invariant.rawValue, subject: subject,
                            message: message.isEmpty ? "\(invariant.rawValue) on \(subject.isEmpty ? "the store" : subject)" : message))
                }
            } catch let error as DatabaseError where error.resultCode != .SQLITE_CORRUPT && error.resultCode != .SQLITE_NOTADB {
                // A table or column the rule reads is gone (a schema edited by hand): that is the finding,
                // and the other rules still run.
                violations.append(
                    StoreCheckRules.cannotCheck(invariant.rawValue, because: error.message ?? "SQLite error \(error.resultCode.rawValue)"))
            }
        }
        return violations
    }
}

extension AppDatabase {
    public func check() throws -> [StoreCheck.Violation] {
        do {
            return try reader.read { try StoreCheck.run($0) }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            // Damage bad enough that SQLite stops reading is itself the finding.
            return [StoreCheck.Violation(kind: "integrity", subject: "", message: error.message ?? "the database disk image is malformed")]
        }
    }
}
