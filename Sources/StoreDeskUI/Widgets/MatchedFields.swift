/// Which of a row's fields a list's filter matched: the MATCHED column, shown (when it fits) only while
/// a filter is on. Each test compares a field as the store's filter does (as typed, in any case, exactly),
/// the filter's text folded once when the test is made, never once a row: the column runs every frame
/// for the visible rows.
///
///     var matched = MatchedFields<RestoreRow>()
///     matched.contains("transaction", filter) { $0.request.transactionId }
///     matched.contains("player", filter) { $0.request.userId }
///     let columns = [transaction, player] + matched.column(priority: 3) + [age, product]
public struct MatchedFields<Row> {
    private var tests: [(name: String, matches: (Row) -> Bool)] = []

    public init() {}

    /// Whether any field is tested: no test, no filter, no column.
    public var isEmpty: Bool { tests.isEmpty }

    /// `name` matched when its value holds `text` (as typed, or in any case when `ignoringCase`); nothing
    /// when `text` is nil or empty.
    public mutating func contains(_ name: String, _ text: String?, ignoringCase: Bool = false, _ value: @escaping (Row) -> String) {
        guard let text, !text.isEmpty else { return }
        if ignoringCase {
            let folded = text.lowercased()
            tests.append((name, { value($0).lowercased().contains(folded) }))
        } else {
            tests.append((name, { value($0).contains(text) }))
        }
    }

    /// `name` matched when its value is `text`.
    public mutating func equals(_ name: String, _ text: String?, _ value: @escaping (Row) -> String) {
        guard let text, !text.isEmpty else { return }
        tests.append((name, { value($0) == text }))
    }

    /// The names of the fields `row` matched, in the order tested, each once.
    public func names(_ row: Row) -> [String] {
        var names: [String] = []
        for test in tests where !names.contains(test.name) && test.matches(row) { names.append(test.name) }
        return names
    }

    /// The MATCHED column at `priority`, or none while nothing is tested.
    public func column(priority: Int) -> [ListColumn<Row>] {
        guard !isEmpty else { return [] }
        return [ListColumn("MATCHED", priority: priority, min: 7, ideal: 16) { names($0).joined(separator: ", ") }]
    }
}
