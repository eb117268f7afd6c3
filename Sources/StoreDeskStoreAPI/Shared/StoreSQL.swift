import StoreDeskCore

/// A statement written once for both backends: its SQL with the values bound into it, rendered in the
/// dialect of the store that runs it (placeholders `?` or `$1`, a list as `(?, ?)` or `($1, $2)`).
/// Identifiers both dialects read alike (`"user"` quoted, `IN` lists, `EXISTS`, `COUNT(*)`) are written
/// as they are; what only one dialect says goes through `Dialect` (a row lock).
///
///     let sql: StoreSQL = "SELECT * FROM game_account WHERE apple_id IN \(list: appleIds) AND app_id = \(appId)"
///     try db.rows(sql)
public struct StoreSQL: Sendable, ExpressibleByStringInterpolation {
    enum Piece: Sendable, Hashable {
        case sql(String)
        case value(StoreValue)
        case list([StoreValue])
        case fragment(Dialect.Fragment)
    }

    var pieces: [Piece]

    public init(stringLiteral value: String) { pieces = [.sql(value)] }

    public init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) { pieces.reserveCapacity(interpolationCount * 2 + 1) }

        public mutating func appendLiteral(_ literal: String) { if !literal.isEmpty { pieces.append(.sql(literal)) } }
        public mutating func appendInterpolation(_ value: String) { pieces.append(.value(.text(value))) }
        public mutating func appendInterpolation(_ value: String?) { pieces.append(.value(value.map { .text($0) } ?? .null)) }
        public mutating func appendInterpolation(_ value: Int64) { pieces.append(.value(.integer(value))) }
        public mutating func appendInterpolation(_ value: Int64?) { pieces.append(.value(value.map { .integer($0) } ?? .null)) }
        public mutating func appendInterpolation(_ value: Int) { pieces.append(.value(.integer(Int64(value)))) }
        public mutating func appendInterpolation(_ value: [UInt8]) { pieces.append(.value(.blob(value))) }
        public mutating func appendInterpolation(_ value: StoreValue) { pieces.append(.value(value)) }
        public mutating func appendInterpolation(_ value: Instant) { pieces.append(.value(.integer(value.millis))) }
        public mutating func appendInterpolation(_ value: Instant?) { pieces.append(.value(value.map { .integer($0.millis) } ?? .null)) }
        /// A text column's enumeration value, by its raw value.
        public mutating func appendInterpolation<T: RawRepresentable>(_ value: T) where T.RawValue == String {
            pieces.append(.value(.text(value.rawValue)))
        }
        /// `(v1, v2, …)`, for `IN`; an empty list is `(NULL)`, which nothing is in.
        public mutating func appendInterpolation(list values: [String]) { pieces.append(.list(values.map { .text($0) })) }
        public mutating func appendInterpolation(list values: [Int64]) { pieces.append(.list(values.map { .integer($0) })) }
        /// SQL written into the statement as it is (a fragment of the caller's own, never a value).
        public mutating func appendInterpolation(sql fragment: String) { pieces.append(.sql(fragment)) }
        /// Another statement's SQL and values, spliced in where it stands.
        public mutating func appendInterpolation(_ statement: StoreSQL) { pieces += statement.pieces }
        /// A fragment only one dialect has (nil: none).
        public mutating func appendInterpolation(_ fragment: Dialect.Fragment?) { if let fragment { pieces.append(.fragment(fragment)) } }
    }

    /// `%text%` with LIKE's wildcards and its escape character taken literally (the pattern of
    /// `.likeIgnoringCase … ESCAPE '\'`).
    public static func likePattern(containing text: String) -> String {
        "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }

    /// The parts joined by `separator` (`" AND "`), each in parentheses; nil when there are none.
    public static func joined(_ parts: [StoreSQL], separator: String) -> StoreSQL? {
        guard !parts.isEmpty else { return nil }
        var pieces: [Piece] = []
        for (index, part) in parts.enumerated() {
            pieces.append(.sql(index == 0 ? "(" : ")" + separator + "("))
            pieces += part.pieces
        }
        pieces.append(.sql(")"))
        return StoreSQL(pieces: pieces)
    }

    init(pieces: [Piece]) { self.pieces = pieces }

    /// Whether the statement's text depends on its values (an `IN` list's length): a backend keeps such a
    /// statement out of its cache of prepared statements, which would otherwise grow with every length met.
    public var hasList: Bool { pieces.contains { if case .list = $0 { true } else { false } } }

    /// The SQL as `dialect` writes it and its values in order.
    public func rendered(_ dialect: Dialect) -> (sql: String, values: [StoreValue]) {
        var sql = ""
        var values: [StoreValue] = []
        // Called once the value is in `values`: PostgreSQL numbers its placeholders from 1.
        func placeholder() -> String { dialect == .sqlite ? "?" : "$\(values.count)" }
        for piece in pieces {
            switch piece {
            case .sql(let text):
                sql += text
            case .fragment(let fragment):
                sql += dialect.spelling(fragment)
            case .value(let value):
                values.append(value)
                sql += placeholder()
            case .list(let list):
                guard !list.isEmpty else {
                    sql += "(NULL)"
                    continue
                }
                sql += "("
                for (index, value) in list.enumerated() {
                    values.append(value)
                    sql += (index == 0 ? "" : ", ") + placeholder()
                }
                sql += ")"
            }
        }
        return (sql, values)
    }

    /// Where the two backends' SQL differs.
    public enum Dialect: Sendable, Hashable {
        case sqlite, postgres

        /// The words only one dialect has, spelled in each.
        public enum Fragment: Sendable, Hashable {
            /// After a `SELECT`: lock the rows read until the transaction ends (PostgreSQL's `FOR UPDATE`).
            /// SQLite needs none: its writes run `BEGIN IMMEDIATE`, the whole file locked for the writer.
            case lockingRows
            /// After a `SELECT`: keep the rows read from changing until the transaction ends (`FOR SHARE`).
            case sharingRows
            /// After a `SELECT` with a join: lock the rows of one table of it (`FOR UPDATE OF alias`).
            case lockingRowsOf(String)
            /// The same, passing over rows another transaction holds (`FOR UPDATE OF alias SKIP LOCKED`): each
            /// of several claimers takes rows no other one took.
            case claimingRowsOf(String)
            /// After a text column in `ORDER BY`: order by the bytes, as SQLite does, whatever collation the
            /// PostgreSQL database was made with (`COLLATE "C"`).
            case byteOrder
            /// Between a text and a pattern: `LIKE` ignoring case (SQLite's `LIKE` ignores ASCII case, PostgreSQL's
            /// `ILIKE`), with `\` as the escape (`likePattern`).
            case likeIgnoringCase
            /// The function that finds a text in another, `f(haystack, needle) > 0` (`instr`, `strpos`).
            case findText
        }

        func spelling(_ fragment: Fragment) -> String {
            switch (fragment, self) {
            case (.lockingRows, .postgres): " FOR UPDATE"
            case (.sharingRows, .postgres): " FOR SHARE"
            case (.lockingRowsOf(let alias), .postgres): " FOR UPDATE OF \(alias)"
            case (.claimingRowsOf(let alias), .postgres): " FOR UPDATE OF \(alias) SKIP LOCKED"
            case (.byteOrder, .postgres): #" COLLATE "C""#
            case (.likeIgnoringCase, .postgres): #" ILIKE "#
            case (.likeIgnoringCase, .sqlite): #" LIKE "#
            case (.findText, .postgres): "strpos"
            case (.findText, .sqlite): "instr"
            case (_, .sqlite): ""
            }
        }
    }
}
