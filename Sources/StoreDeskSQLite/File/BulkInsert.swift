import GRDB
import GRDBSQLite

/// One prepared insert whose arguments are bound with the raw `sqlite3_bind_*` calls: no argument
/// arrays, no value boxing. For the hot paths: the seeder and the payment queue's rows.
struct BulkInsert {
    let statement: Statement
    let db: Database

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.makeStatement(sql: sql)
    }

    /// A statement kept in the connection's cache: for writes repeated transaction after transaction.
    init(_ db: Database, cachedSQL sql: String) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
    }

    struct Binder {
        let handle: SQLiteStatement
        var index: Int32 = 0

        mutating func text(_ value: String?) {
            index += 1
            guard var value else {
                sqlite3_bind_null(handle, index)
                return
            }
            value.withUTF8 { buffer in
                _ = buffer.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), transient)
                }
            }
        }

        mutating func int(_ value: Int) { int(Int64(value)) }

        mutating func int(_ value: Int64?) {
            index += 1
            if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
        }

        mutating func bool(_ value: Bool) { int(value ? 1 : 0) }
    }

    func insert(_ bind: (inout Binder) -> Void) throws { _ = try run(bind) }

    /// Runs the statement once with the bound arguments; returns how many rows it changed.
    @discardableResult
    func run(_ bind: (inout Binder) -> Void) throws -> Int32 {
        let handle = statement.sqliteStatement
        var binder = Binder(handle: handle)
        bind(&binder)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
        return sqlite3_changes(db.sqliteConnection)
    }
}

/// SQLite copies the bound bytes before the call returns (SQLITE_TRANSIENT).
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
