import StoreDeskCore
import StoreDeskStoreAPI
import Testing

/// A player's whole story on both backends: every player's history the same, paged by its cursor without
/// gaps or repeats, filtered by kind.
@Suite(.serialized) struct HistoryContractTests {
    @Test(arguments: Backend.allCases) func everyPlayersStoryReadsAsTheSQLiteStore(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.store(backend) as! any HistoryStore & UserStore
        let reference = try stores.sqlite()
        for row in try reference.users(matching: UserSearch(text: "")).first(limit: 100) {
            let expected = try reference.history(userId: row.id, kinds: [], before: nil, limit: 1000)
            #expect(try store.history(userId: row.id, kinds: [], before: nil, limit: 1000) == expected, "\(row.id)")
            var paged: [HistoryEntry] = []
            var cursor: HistoryCursor?
            repeat {
                let page = try store.history(userId: row.id, kinds: [], before: cursor, limit: 4)
                paged += page
                cursor = page.count == 4 ? page.last.map { HistoryCursor(at: $0.at, kind: $0.kind, id: $0.id) } : nil
            } while cursor != nil
            #expect(paged == expected, "\(row.id) paged")
            let kinds: Set<HistoryKind> = [.grant, .restore, .audit]
            #expect(try store.history(userId: row.id, kinds: kinds, before: nil, limit: 50) == reference.history(userId: row.id, kinds: kinds, before: nil, limit: 50))
        }
        #expect(throws: StoreError.unknownUser(id: "nobody")) { try store.history(userId: "nobody", kinds: [], before: nil, limit: 5) }
    }
}
