/// How a list is sorted, as the console keeps it per screen for the session: a column the store can seek
/// on (by its name in `:sort`, the list's column title in lower case) and the direction.
///
/// `:sort COLUMN [asc|desc]` parses into one against the screen's sortable columns; any other column is
/// refused in one line that names the sortable ones.
public struct ListSort: Sendable, Hashable {
    public var column: String
    public var descending: Bool

    public init(_ column: String, descending: Bool = false) {
        self.column = column
        self.descending = descending
    }

    /// "created ↑", for the list's title.
    public var label: String { column + (descending ? " ↓" : " ↑") }

    /// The next sortable column (the key `o`), from its first direction.
    public func next(in sortable: [String]) -> ListSort {
        let index = sortable.firstIndex(of: column).map { ($0 + 1) % sortable.count } ?? 0
        return ListSort(sortable[index])
    }

    public var reversed: ListSort { ListSort(column, descending: !descending) }

    /// What a list's sort keys ask for: this order (`:sort`), the next sortable column (`o`), the other
    /// way (`O`).
    public enum Change: Sendable, Hashable {
        case to(ListSort), next, reverse
    }

    /// This order after `change`, among the list's `sortable` columns.
    public func changed(by change: Change, sortable: [String]) -> ListSort {
        switch change {
        case .to(let order): order
        case .next: next(in: sortable)
        case .reverse: reversed
        }
    }

    /// `:sort`'s argument: a column, then `asc` or `desc` (ascending when left out).
    public static func parse(_ argument: String, sortable: [String]) -> Result<ListSort, VerbProblem> {
        let words = argument.lowercased().split(separator: " ").map(String.init)
        let choices = sortable.joined(separator: ", ")
        guard let column = words.first else { return .failure(VerbProblem(":sort needs a column: \(choices)")) }
        guard sortable.contains(column) else {
            return .failure(VerbProblem("cannot sort by \(column): the store seeks only on \(choices)"))
        }
        switch words.dropFirst().first {
        case nil, "asc", "ascending": return words.count <= 2 ? .success(ListSort(column)) : .failure(VerbProblem(":sort takes a column and asc or desc"))
        case "desc", "descending": return words.count <= 2 ? .success(ListSort(column, descending: true)) : .failure(VerbProblem(":sort takes a column and asc or desc"))
        case let other?: return .failure(VerbProblem(":sort \(column) \(other): the direction is asc or desc"))
        }
    }

    /// `:sort`'s tab completions: each column, alone and with each direction.
    public static func completions(_ sortable: [String]) -> [String] {
        sortable.flatMap { [$0, $0 + " asc", $0 + " desc"] }
    }
}

extension ScreenCommand {
    /// "created, id or name".
    static func words(_ columns: [String]) -> String {
        columns.count < 2 ? columns.joined() : columns.dropLast().joined(separator: ", ") + " or " + (columns.last ?? "")
    }

    /// `o`: the list sorted by the next of its `sortable` columns (a list of more than one).
    public static func nextSort(
        _ next: S.Action, noun: String, sortable: [String], unavailable: (@Sendable (S) -> String?)? = nil
    ) -> ScreenCommand {
        .key(
            .character("o"), action: next, help: "sort",
            summary: "Sort the \(noun) by the next column the store can seek on: \(sortable.joined(separator: ", ")).",
            unavailable: unavailable)
    }

    /// `O` (reverse the list's order) with the `:sort` verb, for a list sorted by `sortable` columns either way.
    public static func reverseSort(
        _ reverse: S.Action, sortable: [String], unavailable: (@Sendable (S) -> String?)? = nil,
        sort: @escaping @Sendable (ListSort) -> S.Action
    ) -> ScreenCommand {
        .key(
            .character("O"), action: reverse, help: "reverse",
            summary: "Reverse the list's order; :sort COLUMN asc or desc sorts by \(Self.words(sortable)).", unavailable: unavailable,
            verb: ScreenVerb("sort", argument: sortable.joined(separator: "|") + " [asc|desc]", summary: "sort by a column the store can seek on, either way") {
                ListSort.parse($0, sortable: sortable).map(sort)
            })
    }
}
