import StoreDeskCore

/// Where a page of a keyset-paged list starts, in the list's own order. No OFFSET: every page is one
/// seek on an index, however deep into the list it is.
public enum PageAnchor<Cursor: Hashable & Sendable>: Hashable, Sendable {
    /// The first rows of the list.
    case first
    /// The last rows of the list (the page still comes back in list order).
    case last
    /// The rows after this one.
    case after(Cursor)
    /// This row and those after it (a refresh that keeps its place).
    case from(Cursor)
    /// The rows before this one (the page still comes back in list order).
    case before(Cursor)
}

/// One list as the store pages through it: the only way a screen reads a list of rows.
///
/// A screen never sees a cursor: it asks for the rows after or before a row it shows, or for the page
/// that shows a row by its id, and the store keeps the cursor (a sequence, a time and an id, a state
/// group and an expiry) to itself.
///
///     let pager = store.users(matching: UserSearch(text: "王"))
///     let page = try pager.first(limit: 36)
///     let next = try pager.page(after: page[35], limit: 36)
public protocol ListPager<Row>: Sendable {
    associatedtype Row: Identifiable & Equatable & Sendable where Row.ID: Sendable
    associatedtype Cursor: Hashable & Sendable

    /// Where a row sits in the list.
    func cursor(of row: Row) -> Cursor
    /// At most `limit` rows from the anchor, in list order.
    func page(_ anchor: PageAnchor<Cursor>, limit: Int) throws -> [Row]
    /// Where the row with this id would sit, or nil when the store has no such row.
    func cursor(id: Row.ID) throws -> Cursor?
    /// How many rows the list holds, when the store can tell cheaply: a count it keeps, a COUNT over an
    /// index range, or a scan bounded in rows (then `.atLeast` when the bound was reached). nil when it
    /// cannot tell without reading the whole table. Asked off the render path.
    func count() throws -> ListCount?
    /// How many rows come before this one in the list, when the store can tell cheaply (a jump lands
    /// on a row whose place the window does not know); nil when it cannot.
    func rowsBefore(_ row: Row) throws -> Int?
}

/// How many rows a list holds, as far as the store can tell cheaply.
public enum ListCount: Sendable, Hashable {
    case exact(Int)
    /// At least this many: a bounded count reached its bound.
    case atLeast(Int)

    /// A count of at most `bound` rows: `count` when below it, else at least `bound`.
    public static func bounded(_ count: Int, bound: Int) -> ListCount { count < bound ? .exact(count) : .atLeast(bound) }
}

extension ListPager {
    public func count() throws -> ListCount? { nil }
    public func rowsBefore(_ row: Row) throws -> Int? { nil }

    public func first(limit: Int) throws -> [Row] { try page(.first, limit: limit) }
    public func last(limit: Int) throws -> [Row] { try page(.last, limit: limit) }
    public func page(after row: Row, limit: Int) throws -> [Row] { try page(.after(cursor(of: row)), limit: limit) }
    public func page(before row: Row, limit: Int) throws -> [Row] { try page(.before(cursor(of: row)), limit: limit) }
    public func page(from row: Row, limit: Int) throws -> [Row] { try page(.from(cursor(of: row)), limit: limit) }

    /// A page of `limit` rows that shows the row with this id: from it on, with rows from above it when
    /// the list ends first. nil when the store has no such row.
    public func around(id: Row.ID, limit: Int) throws -> [Row]? {
        guard let cursor = try cursor(id: id) else { return nil }
        let below = try page(.from(cursor), limit: limit)
        guard below.count < limit else { return below }
        return try page(.before(cursor), limit: limit - below.count) + below
    }
}

/// Where a row stands in a list ordered by a time, then a number: the cursor of the Restores and Audit
/// lists.
public struct KeysetCursor: Sendable, Hashable {
    public var time: Instant
    public var id: Int64

    public init(time: Instant, id: Int64) {
        self.time = time
        self.id = id
    }
}

/// A page of the Restores or Audit list.
public typealias KeysetAnchor = PageAnchor<KeysetCursor>
