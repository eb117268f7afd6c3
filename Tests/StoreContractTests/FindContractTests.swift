import StoreDeskCore
import StoreDeskStoreAPI
import Testing

/// One search for every id a ticket gives, on both backends: the same results for every id the demo
/// store holds, cut short, whole or in part, and for names and phone numbers.
@Suite(.serialized) struct FindContractTests {
    @Test(arguments: Backend.allCases) func everyIdFindsTheSameThings(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.store(backend) as! any FindStore & QueueStore & UserStore
        let reference = try stores.sqlite()
        var texts = ["2000000100000093", "2611120001", "G20261111-0004", "apple.zhangwei88", "r10000001-1", "张伟", "王", "伟",
                     "13800000000", "138 0000 0000", "+86 138-0000-0000", "0000", "1000000", "20000001", "G2026", "s1", "剑客", "no-such-thing"]
        for row in try reference.users(matching: UserSearch(text: "")).first(limit: 100) {
            texts += [row.id, row.user.name, String(row.user.phone.suffix(4))]
            for transaction in try reference.profile(userId: row.id, recent: 3).recentTransactions {
                texts += [transaction.id, transaction.appOrderId, String(transaction.id.prefix(8))]
            }
        }
        for text in Set(texts) where !text.isEmpty {
            let query = try FindQuery(text)
            #expect(try store.find(query) == reference.find(query), "“\(text)”")
        }
        let some = try store.find(FindQuery("2000000100000093"))
        #expect(some.contains { $0.kind == .transaction && $0.match == .exact })
    }
}
