import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import Testing

/// The trusted roots on both backends: the same list and uses, and adds and removals that decide, refuse
/// and audit as the SQLite store does.
@Suite(.serialized) struct TrustContractTests {
    static func root(_ sha256: String, _ name: String) -> TrustedRoot {
        TrustedRoot(
            id: nil, der: Array("DER of \(name)".utf8), sha256: sha256, subject: "CN=\(name), O=StoreDesk Contract",
            notValidBefore: Instant(millis: 1_500_000_000_000), notValidAfter: Instant(millis: 2_500_000_000_000), addedAt: nil, addedBy: nil)
    }

    @Test(arguments: Backend.allCases) func rootsAreAddedRefusedAndRemovedAsTheSQLiteStoreDoes(_ backend: Backend) throws {
        let store = try ContractStores.get().commandsStore(backend)
        let reference = try ContractStores.get().sqlite()
        #expect(try store.trustRoots() == reference.trustRoots())
        #expect(try store.trustRootUses() == reference.trustRootUses())
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        let support = StaffMember(name: "li.na", role: .support)
        let at = Instant(millis: StoreContractTests.demoClock.millis + 1_000)
        let first = Self.root(String(repeating: "ab", count: 32), "Root A")
        let second = Self.root(String(repeating: "cd", count: 32), "Root B")
        let third = Self.root("cdcdcdcd" + String(repeating: "ef", count: 28), "Root C")
        for (root, staff) in [(first, support), (first, developer), (first, developer), (second, developer), (third, developer)] {
            #expect(said { try store.addTrustRoot(root, by: staff, at: at) } == said { try reference.addTrustRoot(root, by: staff, at: at) }, "\(root.subject) \(staff.role)")
        }
        #expect(try store.trustRoots() == reference.trustRoots())
        let added = try #require(try reference.trustRoots().last?.id)
        for (key, staff) in [("abababab", support), ("cdcdcdcd", developer), ("abab", developer), ("ABABABAB", developer), (String(added), developer), ("no-such", developer)] {
            #expect(said { try store.removeTrustRoot(key, by: staff, at: at) } == said { try reference.removeTrustRoot(key, by: staff, at: at) }, "\(key)")
        }
        #expect(try store.trustRoots() == reference.trustRoots())
        #expect(try store.trustRootUses() == reference.trustRootUses())
        #expect(
            try store.auditEntries(action: "trust", limit: 10).map(AppsContractTests.line)
                == reference.auditEntries(action: "trust", limit: 10).map(AppsContractTests.line))
    }
}
