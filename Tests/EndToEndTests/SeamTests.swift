import Foundation
import Testing

/// Every caller reaches the store through StoreDeskStoreAPI's protocols: only a backend sees its driver
/// (StoreDeskStore GRDB, StoreDeskPostgres PostgresNIO), and only the opener (StoreDeskStores) names the
/// SQLite backend. Read from the sources, so a new `import` that goes around the seam fails here, not in a
/// review.
@Suite struct SeamTests {
    static let sources = Binary.repository.appendingPathComponent("Sources")

    /// The modules under Sources/ whose files import `module`.
    static func importers(of module: String) throws -> Set<String> {
        var found: Set<String> = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            let imports = text.split(separator: "\n").contains { line in
                let words = line.split(separator: " ")
                return words.last == Substring(module) && words.dropLast().allSatisfy { $0 == "import" || $0.hasPrefix("@") }
                    && words.contains("import")
            }
            if imports {
                found.insert(url.path.dropFirst(sources.path.count + 1).split(separator: "/").first.map(String.init) ?? "")
            }
        }
        return found
    }

    @Test func onlyTheBackendSeesGRDB() throws {
        #expect(try Self.importers(of: "GRDB").subtracting(["StoreDeskStore"]).isEmpty)
        #expect(try Self.importers(of: "GRDBSQLite").subtracting(["StoreDeskStore"]).isEmpty)
        #expect(try Self.importers(of: "PostgresNIO").subtracting(["StoreDeskPostgres"]).isEmpty)
    }

    @Test func onlyTheOpenerNamesTheBackend() throws {
        #expect(try Self.importers(of: "StoreDeskStore") == ["StoreDeskStores"])
        #expect(try Self.importers(of: "StoreDeskPostgres") == ["StoreDeskStores"])
    }

    @Test func theNetworkAndTheConsoleSeeTheProtocolsOnly() throws {
        let api = try Self.importers(of: "StoreDeskStoreAPI")
        #expect(api.isSuperset(of: ["StoreDeskNetwork", "StoreDeskUI", "storedesk"]))
    }
}
