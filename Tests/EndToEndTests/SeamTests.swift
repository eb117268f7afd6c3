import Foundation
import Testing

/// Every caller reaches the store through StoreDeskStoreAPI's protocols: only a backend sees its driver
/// (StoreDeskSQLite GRDB, StoreDeskPostgres PostgresNIO), and only the opener (StoreDeskOpener) names the
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
        #expect(try Self.importers(of: "GRDB").subtracting(["StoreDeskSQLite"]).isEmpty)
        #expect(try Self.importers(of: "GRDBSQLite").subtracting(["StoreDeskSQLite"]).isEmpty)
        #expect(try Self.importers(of: "PostgresNIO").subtracting(["StoreDeskPostgres"]).isEmpty)
    }

    @Test func onlyTheOpenerNamesTheBackend() throws {
        #expect(try Self.importers(of: "StoreDeskSQLite") == ["StoreDeskOpener"])
        #expect(try Self.importers(of: "StoreDeskPostgres") == ["StoreDeskOpener"])
    }

    @Test func theNetworkAndTheConsoleSeeTheProtocolsOnly() throws {
        let api = try Self.importers(of: "StoreDeskStoreAPI")
        #expect(api.isSuperset(of: ["StoreDeskNetwork", "StoreDeskUI", "storedesk"]))
    }

    /// No SQLite notion crosses the seam: the code (not the comments) of StoreDeskStoreAPI, the console,
    /// the network and the executable names no rowid, no FTS5 MATCH or LIKE pattern, no `data_version`
    /// pragma and no WAL file. The SQLite backend turns its own words into the seam's (a user's `sequence`,
    /// `UserSearch`'s text, `CommitWatching`). The SQL written once for both backends (`StoreDeskStoreAPI/Shared`)
    /// may build a LIKE pattern, standard SQL both dialects run (`ILIKE` on PostgreSQL), and nothing else here.
    @Test func noSQLiteNotionCrossesTheSeam() throws {
        let words = ["rowid", "ftsPhrase", "likePattern", "data_version", "PRAGMA", "-wal", "-shm", " MATCH "]
        var found: [String] = []
        for module in ["StoreDeskStoreAPI", "StoreDeskUI", "StoreDeskNetwork"] {
            let files = FileManager.default.enumerator(at: Self.sources.appendingPathComponent(module), includingPropertiesForKeys: nil)
            while let url = files?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                for (number, line) in try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    // A SQLite file's own error message may say what SQLite said (StoreError's file cases).
                    guard !code.contains("SQLite says") else { continue }
                    let shared = url.deletingLastPathComponent().lastPathComponent == "Shared"
                    for word in words where code.contains(word) && !(shared && word == "likePattern") { found.append("\(module)/\(url.lastPathComponent):\(number + 1): \(word)") }
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
