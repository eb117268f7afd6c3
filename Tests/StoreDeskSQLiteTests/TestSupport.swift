import Foundation
import StoreDeskCore
@testable import StoreDeskSQLite

/// A folder of its own for each test, removed when the test's value goes away.
final class TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-tests-" + UUID().uuidString)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

enum Fixtures {
    static func demo() throws -> DemoDatasetLoader.Contents {
        try DemoDatasetLoader.embeddedDemo()
    }

    /// A demo store at `path` (a copy of the one built once per process).
    static func demoStore(at path: String) throws -> AppDatabase {
        try DemoDatasetLoader.copyOfEmbeddedDemo(at: path)
        return try AppDatabase.open(path: path, access: .readWrite)
    }

    /// The bytes of a file, to prove a failed command left it untouched.
    static func checksum(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
}
