import Foundation

/// `config show`: the config file (where, and whether it was read) and each value in force with its source.
struct ConfigReport: CommandReport {
    struct Value: Encodable {
        var value: String
        var source: ValueSource
    }

    struct FileJSON: Encodable {
        var path: String
        /// `read`, `absent` or `ignored`.
        var status: String
        @NullWhenAbsent var problem: String?
    }

    struct JSON: Encodable {
        var file: FileJSON
        var actor, role, theme, store: Value
    }

    var file: UserConfig
    /// In the order they are shown: actor, role, theme, store.
    var values: [(key: String, value: Value)]

    var fileStatus: String { file.problem != nil ? "ignored" : file.exists ? "read" : "absent" }

    var json: JSON {
        let byKey = Dictionary(values.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let none = Value(value: "", source: .default)
        return JSON(
            file: FileJSON(path: file.path, status: fileStatus, problem: file.problem),
            actor: byKey["actor"] ?? none, role: byKey["role"] ?? none, theme: byKey["theme"] ?? none,
            store: byKey["store"] ?? none)
    }

    var text: String {
        let width = values.map(\.key.count).max() ?? 0
        let lines = values.map { key, value in
            key.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value.value + "  (" + value.source.rawValue + ")"
        }
        let fileLine = "config file  " + file.path + "  (" + (file.problem != nil ? "ignored: see the line above" : fileStatus) + ")"
        return (lines + [fileLine]).joined(separator: "\n")
    }
}
