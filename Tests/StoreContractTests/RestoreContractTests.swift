import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// The restore desk's contract on both backends: the list in every order both ways, prompts and counts as
/// the SQLite store answers them, confirms and declines that decide the same and write the same rows, a
/// login that opens the same prompts, and of several connections confirming one prompt at once, exactly
/// one winner.
@Suite(.serialized) struct RestoreContractTests {
    static func outcome(_ body: () throws -> RestorePrompt) -> String {
        do {
            let prompt = try body()
            return "ok \(prompt.request.status) \(prompt.delivery?.order.id ?? "-") \(prompt.delivery?.grant?.userId ?? "-")"
        } catch {
            return "refused: \(error)"
        }
    }

    @Test(arguments: Backend.allCases) func theListPromptsAndCountsAnswerAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let reference = try ContractStores.get().sqlite()
        #expect(try store.restoreCounts() == reference.restoreCounts())
        for order in RestoreOrder.allCases {
            for descending in [false, true] {
                for status in [nil] + RestoreStatus.allCases.map(Optional.some) {
                    let query = RestoreQuery(status: status, order: order, descending: descending)
                    let expected = try reference.restores(query).first(limit: 200)
                    let pager = store.restores(query)
                    let (forward, backward) = try pager.walked(limit: 3)
                    #expect(forward == expected, "\(order) \(descending) \(String(describing: status))")
                    #expect(backward == expected, "\(order) \(descending) backwards")
                    // The count the list's title shows: the rows' own number, as the SQLite store tells it.
                    #expect(try pager.count() == .exact(expected.count), "\(order) \(descending) count")
                    #expect(try pager.count() == reference.restores(query).count())
                }
            }
        }
        let text = RestoreQuery(text: "1000000")
        #expect(try store.restores(text).first(limit: 200) == reference.restores(text).first(limit: 200))
        #expect(try store.restores(text).count() == reference.restores(text).count())
        #expect(try store.restores(text).count() != nil)
        for row in try reference.restores(RestoreQuery()).first(limit: 200) {
            #expect(try store.restorePrompt(transactionId: row.request.transactionId) == reference.restorePrompt(transactionId: row.request.transactionId))
        }
        #expect(try store.restorePrompt(transactionId: "no-such") == nil)
    }

    @Test(arguments: Backend.allCases) func confirmsAndDeclinesDecideAndWriteAsTheSQLiteStore(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let reference = try ContractStores.get().sqlite()
        let support = StaffMember(name: "li.na", role: .support)
        let open = try reference.restores(RestoreQuery(status: .open)).first(limit: 200)
        #expect(open.count >= 2)
        var confirmed = 0
        for (index, row) in open.enumerated() {
            let id = row.request.transactionId
            let prompt = try #require(try reference.restorePrompt(transactionId: id))
            let at = Instant(millis: StoreContractTests.demoClock.millis + Int64(index) * 1000)
            if index % 3 == 2 {
                let expected = Self.outcome { try reference.declineRestore(transactionId: id, reason: "refunded by Apple", by: support, at: at) }
                #expect(Self.outcome { try store.declineRestore(transactionId: id, reason: "refunded by Apple", by: support, at: at) } == expected)
                continue
            }
            for account in prompt.candidates {
                let target = RestoreAccount(userId: account.userId, sid: account.sid, roleId: account.roleId)
                let expected = Self.outcome { try reference.confirmRestore(transactionId: id, onto: target, by: support, at: at) }
                let got = Self.outcome { try store.confirmRestore(transactionId: id, onto: target, by: support, at: at) }
                #expect(got == expected, "\(id) onto \(target)")
                if expected.hasPrefix("ok") { confirmed += 1 }
            }
            #expect(try store.restorePrompt(transactionId: id) == reference.restorePrompt(transactionId: id))
        }
        #expect(confirmed >= 1)
        // An operator may only look; an unknown transaction is named.
        let operatorSays = Self.outcome {
            try store.declineRestore(transactionId: open[0].request.transactionId, reason: "x", by: StaffMember(name: "w", role: .operator), at: StoreContractTests.demoClock)
        }
        #expect(operatorSays.hasPrefix("refused"))
        #expect(Self.outcome { try store.declineRestore(transactionId: "no-such", reason: "x", by: support, at: StoreContractTests.demoClock) }
            == Self.outcome { try reference.declineRestore(transactionId: "no-such", reason: "x", by: support, at: StoreContractTests.demoClock) })
        #expect(try store.restoreCounts() == reference.restoreCounts())
        #expect(try store.audit(AuditQuery(action: "restore")).first(limit: 50).map(\.detail)
            == reference.audit(AuditQuery(action: "restore")).first(limit: 50).map(\.detail))
    }

    @Test(arguments: Backend.allCases) func aLoginOpensTheSamePrompts(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let reference = try ContractStores.get().sqlite()
        for user in ["10000001", "10000003", "10000017", "10000040"] {
            let expected = try reference.recordLogin(userId: user, at: StoreContractTests.demoClock)
            let login = try store.recordLogin(userId: user, at: StoreContractTests.demoClock)
            #expect(login.appleIds == expected.appleIds && login.prompts == expected.prompts && login.opened == expected.opened, "\(user)")
        }
        #expect(throws: StoreError.unknownUser(id: "nobody")) { try store.recordLogin(userId: "nobody", at: StoreContractTests.demoClock) }
    }

    @Test(arguments: Backend.allCases) func ofSeveralConnectionsConfirmingOnePromptExactlyOneWins(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let support = StaffMember(name: "li.na", role: .support)
        let open = try store.restores(RestoreQuery(status: .open)).first(limit: 200)
        // A prompt some account can take: the first the rules let through on a scratch copy.
        let scratch = try ContractStores.get().store(backend)
        var chosen: (String, RestoreAccount)?
        for row in open where chosen == nil {
            for account in try #require(try scratch.restorePrompt(transactionId: row.request.transactionId)).candidates {
                let target = RestoreAccount(userId: account.userId, sid: account.sid, roleId: account.roleId)
                if (try? scratch.confirmRestore(transactionId: row.request.transactionId, onto: target, by: support, at: StoreContractTests.demoClock)) != nil {
                    chosen = (row.request.transactionId, target)
                    break
                }
            }
        }
        let (transaction, target) = try #require(chosen)
        let connections = try (0..<4).map { _ in try ContractStores.another(store) }
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: connections.count) { index in
            outcomes.add(Self.outcome { try connections[index].confirmRestore(transactionId: transaction, onto: target, by: support, at: StoreContractTests.demoClock) })
        }
        let all = outcomes.all
        #expect(all.filter { $0.hasPrefix("ok") }.count == 1, "\(all)")
        #expect(all.filter { $0.contains("already restored") }.count == connections.count - 1, "\(all)")
        let prompt = try #require(try store.restorePrompt(transactionId: transaction))
        #expect(prompt.request.status == .confirmed && prompt.delivery?.grant != nil)
    }
}

/// Results gathered from several threads.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String] = []
    func add(_ value: String) { lock.withLock { values.append(value) } }
    var all: [String] { lock.withLock { values } }
}
