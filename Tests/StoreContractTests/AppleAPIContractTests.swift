import Foundation
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// The store's signing chain and apps' App Store Server API keys on both backends: kept, refused, replaced
/// and audited as the SQLite store does, the private keys coming back byte for byte.
@Suite(.serialized) struct AppleAPIContractTests {
    typealias AppleStore = CommandsContractStore & AppleAPIStore & AppStoreServerStore

    static func store(_ backend: Backend) throws -> any AppleStore {
        switch backend {
        case .sqlite: try ContractStores.get().sqlite()
        case .postgres: try ContractStores.get().postgres()
        }
    }

    static func signer(_ seed: UInt8) -> StoredSigner {
        StoredSigner(
            chain: SigningChainDER(
                leafDER: [seed, 1], intermediateDER: [seed, 2], rootDER: [seed, 3], leafKeyDER: [seed, 4, 0, 255],
                intermediateKeyDER: [seed, 5], rootKeyDER: [seed, 6]),
            rootSHA256: String(repeating: String(format: "%02x", seed), count: 32))
    }

    @Test(arguments: Backend.allCases) func theSignerIsKeptOnceReplacedOnlyWhenAskedAndAudited(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        let support = StaffMember(name: "li.na", role: .support)
        let at = Instant(millis: StoreContractTests.demoClock.millis + 1_000)
        #expect(try store.signer() == nil)
        for (signer, replacing, staff) in [
            (Self.signer(1), false, support), (Self.signer(1), false, developer), (Self.signer(2), false, AppleAPIWrites.firstUse),
            (Self.signer(3), true, developer),
        ] {
            #expect(
                said { try store.saveSigner(signer, replacing: replacing, by: staff, at: at).created }
                    == said { try reference.saveSigner(signer, replacing: replacing, by: staff, at: at).created })
        }
        let kept = try #require(try store.signer())
        #expect(kept.chain.rootKeyDER == Self.signer(3).chain.rootKeyDER && kept.chain.leafKeyDER == [3, 4, 0, 255])
        #expect(kept == (try reference.signer()))
        #expect(!"\(kept)".contains("[3, 6]") && !String(reflecting: kept).contains("255"))
        #expect(
            try store.auditEntries(action: "signer", limit: 10).map(AppsContractTests.line)
                == reference.auditEntries(action: "signer", limit: 10).map(AppsContractTests.line))
    }

    @Test(arguments: Backend.allCases) func apiKeysAreKeptByAppAndKeyIdAndRefusedForUnknownApps(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        let developer = StaffMember(name: "zhao.dev", role: .developer)
        let operatorMember = StaffMember(name: "wu.op", role: .operator)
        let at = Instant(millis: StoreContractTests.demoClock.millis + 1_000)
        let keys = [
            (AppAPIKey(appId: "1001", keyId: "KEY1", issuerId: "ISS-A", publicKeyDER: [1, 2, 3]), developer),
            (AppAPIKey(appId: "1001", keyId: "KEY1", issuerId: "ISS-B", publicKeyDER: [4, 5]), developer),
            (AppAPIKey(appId: "1002", keyId: "KEY2", issuerId: "ISS-A", publicKeyDER: [6]), developer),
            (AppAPIKey(appId: "9999", keyId: "KEY3", issuerId: "ISS-A", publicKeyDER: [7]), developer),
            (AppAPIKey(appId: "1003", keyId: "KEY4", issuerId: "ISS-A", publicKeyDER: [8]), operatorMember),
        ]
        for (key, staff) in keys {
            #expect(
                said { try store.setAppAPIKey(key, by: staff, at: at)?.issuerId } == said { try reference.setAppAPIKey(key, by: staff, at: at)?.issuerId },
                "\(key.appId) \(key.keyId)")
        }
        let all = try store.appAPIKeys(appId: nil)
        #expect(all.map { "\($0.appId) \($0.keyId) \($0.issuerId) \($0.publicKeyDER)" } == ["1001 KEY1 ISS-B [4, 5]", "1002 KEY2 ISS-A [6]"])
        #expect(all == (try reference.appAPIKeys(appId: nil)))
        #expect(try store.appAPIKeys(appId: "1002").map(\.keyId) == ["KEY2"])
        #expect(try store.appAPIKeys(appId: "1003").isEmpty)
        #expect(
            try store.auditEntries(action: "app.api_key", limit: 10).map(AppsContractTests.line)
                == reference.auditEntries(action: "app.api_key", limit: 10).map(AppsContractTests.line))
    }

    @Test(arguments: Backend.allCases) func aCustomerReadsAndTakesATokenAsTheSQLiteStoreDoes(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        for id in ["2000000100000030", "2000000100000078", "2000000100000001", "no-such"] {
            #expect(try store.appStoreCustomer(transactionId: id) == reference.appStoreCustomer(transactionId: id), "\(id)")
        }
        let at = Instant(millis: StoreContractTests.demoClock.millis + 1_000)
        for target in [store, reference] {
            try target.setAppAccountToken("7e3fb20b-4cdb-47cc-936d-99d65f608138", originalTransactionId: "2000000100000030", actor: .apiKey("K"), at: at)
        }
        let customer = try #require(try store.appStoreCustomer(transactionId: "2000000100000030"))
        #expect(customer == (try reference.appStoreCustomer(transactionId: "2000000100000030")))
        #expect(customer.purchases.filter { $0.transaction.originalTransactionId == "2000000100000030" }.allSatisfy {
            $0.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        })
        #expect(
            try store.auditEntries(action: "apple", limit: 10).map(AppsContractTests.line)
                == reference.auditEntries(action: "apple", limit: 10).map(AppsContractTests.line))
    }

    @Test(arguments: Backend.allCases) func renewalDatesAreExtendedAsTheSQLiteStoreExtendsThem(_ backend: Backend) throws {
        let store = try Self.store(backend)
        let reference = try Self.store(.sqlite)
        let at = Instant(millis: StoreContractTests.demoClock.millis + 1_000)
        for (id, days, reason, identifier) in [
            ("2000000100000030", 30, 1, "a"), ("2000000100000030", 30, 1, "a"), ("2000000100000030", 10, 2, "b"),
            ("2000000100000030", 5, 0, "c"), ("2000000100000078", 5, 0, "d"), ("no-such", 5, 0, "e"),
        ] {
            let request = try RenewalExtensionRequest(extendByDays: days, extendReasonCode: reason, requestIdentifier: identifier)
            #expect(
                said { try store.extendRenewalDate(originalTransactionId: id, request, actor: .apiKey("K"), at: at)?.effectiveDate }
                    == said { try reference.extendRenewalDate(originalTransactionId: id, request, actor: .apiKey("K"), at: at)?.effectiveDate },
                "\(id) \(identifier)")
        }
        #expect(try store.appStoreCustomer(transactionId: "2000000100000030") == reference.appStoreCustomer(transactionId: "2000000100000030"))
        #expect(
            try store.auditEntries(action: "apple", limit: 10).map(AppsContractTests.line)
                == reference.auditEntries(action: "apple", limit: 10).map(AppsContractTests.line))
    }
}
