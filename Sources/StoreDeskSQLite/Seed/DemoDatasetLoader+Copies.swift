import Foundation
import StoreDeskStoreAPI

extension DemoDatasetLoader {
    /// The embedded demo dataset, read once per process.
    public static func embeddedDemo() throws -> Contents { try embedded.get() }

    /// The embedded demo store at `path` (which must not exist), built once per process and copied from then
    /// on: a copy of its file takes a millisecond, a build many more, and the tests and benchmarks make
    /// hundreds. The copy is the same closed file a build leaves (no `-wal` beside it).
    public static func copyOfEmbeddedDemo(at path: String) throws {
        try FileManager.default.copyItem(atPath: try template.get(), toPath: path)
    }

    /// Why the demo could not be read or built, kept (as text: an error is not `Sendable`) for every later
    /// caller to see.
    struct Unavailable: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    private static let embedded: Result<Contents, Unavailable> = {
        do { return .success(try load(from: embeddedDirectory(environment: [:]))) } catch { return .failure(Unavailable(description: "\(error)")) }
    }()

    /// The process's own copy, in a folder removed when the process exits.
    private static let template: Result<String, Unavailable> = {
        do {
            let folder = templateFolder(pid: getpid())
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            atexit { try? FileManager.default.removeItem(atPath: DemoDatasetLoader.templateFolder(pid: getpid())) }
            let path = folder + "/demo.sqlite"
            try build(try embedded.get(), at: path)
            return .success(path)
        } catch {
            return .failure(Unavailable(description: "the demo store could not be built: \(error)"))
        }
    }()

    static func templateFolder(pid: pid_t) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-demo-\(pid)").path
    }
}
