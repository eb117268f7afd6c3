import Foundation
import StoreDeskStoreAPI

/// `user export`: how many rows went to which file.
struct ExportReport: CommandReport {
    var rows: Int
    var path: String
    var format: ExportFormat
    var seconds: Double

    struct JSON: Encodable {
        var rows: Int
        var path: String
        var format: String
        var seconds: Double
    }

    var json: JSON { JSON(rows: rows, path: path, format: format.rawValue, seconds: (seconds * 1000).rounded() / 1000) }

    var text: String { "exported \(rows) player\(rows == 1 ? "" : "s") to \(path) (\(format.rawValue), \(String(format: "%.2f", seconds)) s)" }
}
