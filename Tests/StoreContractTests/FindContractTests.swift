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

    /// An exact id lists every kind of record it names: the game's order id
    /// `G20261117-0001` names the transaction 2000000100000093 and the open restore prompt on it, the
    /// platform's order id 2611120001 its order and the confirmed prompt on 2000000100000088, and the Apple
    /// order id of 2000000100000093 the transaction and the prompt; `find` stopped at the first kind.
    @Test(arguments: Backend.allCases) func anExactIdListsEveryKindItNames(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend) as! any FindStore
        func kinds(_ text: String) throws -> [String] {
            try store.find(FindQuery(text)).map { "\($0.kind.rawValue) \($0.field.rawValue) \($0.match.rawValue) \($0.transactionId ?? "-")" }
        }
        #expect(try kinds("G20261117-0001") == [
            "transaction app_order_id exact 2000000100000093", "restore_prompt app_order_id exact 2000000100000093",
        ])
        let prompt = try store.find(FindQuery("G20261117-0001")).last
        #expect(prompt?.restorePromptId == 3 && prompt?.userId == "10000024" && prompt?.matched == "G20261117-0001")
        #expect(try kinds("2611120001") == ["order order_id exact 2000000100000088", "restore_prompt order_id exact 2000000100000088"])
        let apple = AppleOrderId.of(transactionId: "2000000100000093")
        #expect(try kinds(apple) == [
            "transaction apple_order_id exact 2000000100000093", "restore_prompt apple_order_id exact 2000000100000093",
        ])
        // The transaction's own id, as before: the transaction and its prompt, nothing twice.
        #expect(try kinds("2000000100000093") == [
            "transaction transaction_id exact 2000000100000093", "restore_prompt transaction_id exact 2000000100000093",
        ])
    }
}
