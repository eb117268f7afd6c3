import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import Testing

/// A simulation writes into the store as real purchases do, so on both backends: its purchases are
/// Sandbox unless a run asks for Production, each is made on a game account the store has for the
/// player in that app (its grant too), its start, faults and stop are audited under the staff member who
/// ran it, and the desk's lists can leave its Sandbox prompts and transactions out.
@Suite(.serialized) struct SimulationRunContractTests {
    static let developer = StaffMember(name: "dev.zhou", role: .developer)
    static let faults: [PaymentFault] = [.clientCrash(probability: 0.5)]

    /// A short run as `storedesk simulate` drives it: an audited start, every step committed, an audited stop.
    static func simulate(_ store: any ContractStore, environment: StoreEnvironment) throws -> [PaymentChange] {
        let catalogue = try store.paymentCatalogue(userLimit: 1000)
        let audit = RunAudit(
            staff: developer, at: StoreContractTests.demoClock,
            settings: RunAudit.settings(environment: environment, seconds: 20, rate: 5, seed: 11), faults: faults)
        let began = try store.startRun(.simulate, takingOver: true, audit: audit)
        var simulation = PaymentSimulation(
            PaymentSimulation.Configuration(
                seconds: 20, rate: 5, seed: 11, faults: faults, start: StoreContractTests.demoClock, accounts: catalogue.accounts,
                apps: catalogue.apps, products: catalogue.products, run: began.run.id, environment: environment))
        simulation.resume(began.inFlight)
        let changes = simulation.runCollecting()
        try store.apply(changes, run: began.run)
        try store.endRun(began.run, audit: audit)
        return changes
    }

    @Test(arguments: Backend.allCases) func aRunsPurchasesAreSandboxOnAccountsTheStoreHas(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let changes = try Self.simulate(store, environment: .sandbox)
        let ids = Set(changes.compactMap(\.transaction?.id))
        #expect(ids.count > 20)
        var accounts: [String: [GameAccount]] = [:]
        var grants = 0
        for id in ids {
            let detail = try #require(try store.queueDetail(transactionId: id))
            let t = detail.transaction
            #expect(t.environment == .sandbox, "\(id)")
            if accounts[t.userId] == nil { accounts[t.userId] = try store.profile(userId: t.userId).gameAccounts }
            let theirs = accounts[t.userId] ?? []
            #expect(theirs.contains { $0.appId == t.appId && $0.sid == t.sid && $0.roleId == t.roleId }, "\(id) on \(t.appId) \(t.sid)/\(t.roleId)")
            if let order = detail.order { #expect(order.subPayment == StoreEnvironment.sandbox.rawValue) }
            if let grant = detail.grant {
                grants += 1
                #expect(grant.userId == t.userId && theirs.contains { $0.appId == t.appId && $0.sid == grant.sid && $0.roleId == grant.roleId }, "grant of \(id)")
            }
        }
        #expect(grants > 0)
    }

    @Test(arguments: Backend.allCases) func aProductionRunIsProductionOnlyWhenAskedFor(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let changes = try Self.simulate(store, environment: .production)
        let environments = Set(changes.compactMap(\.transaction?.environment))
        #expect(environments == [.production])
    }

    @Test(arguments: Backend.allCases) func startFaultsAndStopAreAuditedUnderTheStaffMember(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        _ = try Self.simulate(store, environment: .sandbox)
        let lines = try store.audit(AuditQuery(action: "simulate", oldestFirst: true)).first(limit: 10)
        #expect(lines.map(\.action) == [RunAudit.startAction, RunAudit.faultAction, RunAudit.stopAction])
        #expect(lines.allSatisfy { $0.actor == "dev.zhou" && $0.role == "developer" && $0.subject == lines[0].subject })
        #expect(lines[0].detail.hasPrefix("simulate run started: Sandbox purchases, 20 s at 5/s, seed 11"))
        #expect(lines[1].detail == "fault clientCrash:0.5 injected")
        #expect(lines[2].detail.hasPrefix("simulate run stopped"))
    }

    @Test(arguments: Backend.allCases) func theDeskCanLeaveOutASimulationsSandboxPromptsAndCountsThem(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let before = try store.restores(RestoreQuery(status: .open)).first(limit: 1000)
        let changes = try Self.simulate(store, environment: .sandbox)
        // Players whose client crashed after paying log in: their dropped orders become prompts.
        let crashed = Set(changes.flatMap(\.events).filter { $0.kind == .clientCrashed }.map(\.transactionId))
        let players = Set(changes.compactMap(\.transaction).filter { crashed.contains($0.id) }.map(\.userId))
        #expect(!players.isEmpty)
        for player in players.sorted() { _ = try store.recordLogin(userId: player, at: StoreContractTests.demoClock.adding(.hours(1))) }
        let all = try store.restores(RestoreQuery(status: .open)).first(limit: 1000)
        let sandbox = all.filter { $0.environment == .sandbox }
        #expect(sandbox.count > 0 && sandbox.allSatisfy { crashed.contains($0.request.transactionId) })
        #expect(try store.sandboxRestoreCounts()[.open] == sandbox.count)
        let production = try store.restores(RestoreQuery(status: .open, environment: .production)).first(limit: 1000)
        // The real prompts (the demo's, and those its players' logins opened) stay; no simulated one does.
        #expect(production.map(\.request.id) == all.filter { $0.environment == .production }.map(\.request.id))
        #expect(Set(before.map(\.request.id)).isSubset(of: production.map(\.request.id)))
        #expect(!production.contains { crashed.contains($0.request.transactionId) })
        #expect(try store.sandboxQueueCount() == (try store.queue(QueueQuery(environment: .sandbox)).first(limit: 1000)).count)
        #expect(try store.queue(QueueQuery(environment: .production)).first(limit: 1000).allSatisfy { $0.environment == .production })
    }
}
