import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// Golden text frames live beside the tests in `Golden/`. `STOREDESK_RECORD=1` re-records them, and a
/// recording run fails on purpose so nobody re-records by accident.
enum Golden {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func check(_ canvas: Canvas, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = folder.appendingPathComponent(name + ".txt")
        let actual = canvas.plainText
        if ProcessInfo.processInfo.environment["STOREDESK_RECORD"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            Issue.record("re-recorded \(name).txt: run again without STOREDESK_RECORD", sourceLocation: sourceLocation)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("no golden file \(name).txt: record it with STOREDESK_RECORD=1", sourceLocation: sourceLocation)
            return
        }
        if actual != expected {
            let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let line = Array(zip(a, e)).firstIndex { $0.0 != $0.1 } ?? min(a.count, e.count)
            Issue.record(
                "\(name).txt differs at line \(line + 1):\n expected: \(line < e.count ? e[line] : "<end>")\n   actual: \(line < a.count ? a[line] : "<end>")",
                sourceLocation: sourceLocation)
        }
    }
}

/// A console over a fresh copy of the demo store, driven without a terminal.
final class ConsoleHarness {
    let folder: URL
    let database: AppDatabase
    let runtime: ConsoleRuntime

    init(size: Size, role: StaffRole = .operator, readOnly: Bool = false, configure: (inout AppState) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-ui-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("demo.sqlite").path
        let demo = try DemoDatasetLoader.embeddedDemo()
        try DemoDatasetLoader.copyOfEmbeddedDemo(at: path)
        database = try AppDatabase.open(path: path, access: readOnly ? .readOnly : .readWriteConcurrent)
        let state = AppState(
            size: size, session: Session(role: role, actor: "tester", readOnly: readOnly), storePath: path,
            clock: demo.meta.clock, timeZone: TimeZone(identifier: "UTC") ?? .current, themeName: "dark",
            themeNames: ThemeCatalog(environment: [:]).names)
        var configured = state
        configure(&configured)
        runtime = ConsoleRuntime(state: configured, theme: .builtInDefault, store: database, catalog: ThemeCatalog(environment: [:]))
        runtime.settle()
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    var state: AppState { runtime.state }
    var frame: Canvas { runtime.state.render() }
    var text: String { frame.plainText }

    func press(_ keys: Key...) { for key in keys { runtime.dispatch(.key(key)) } }
    func type(_ text: String) { for c in text { runtime.dispatch(.key(.character(c))) } }
    /// A connection of its own to the console's store file, as another process (the sqlite3 CLI) would
    /// have one: for rows the console has no named method for, and for changes made behind its back.
    func outside() throws -> DatabaseQueue { try DatabaseQueue(path: database.path) }

    /// Goes to a screen by its name, as `:NAME` does (tab numbers change as screens are added); runs any
    /// other `:` command line the same way.
    func show(_ screen: String) {
        press(.character(":"))
        type(screen)
        press(.enter)
    }
}
