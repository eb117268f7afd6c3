import Foundation
import GRDB
import StoreDeskCore
import StoreDeskTrust
import Testing

@testable import StoreDeskSQLite

/// Apple's half in the SQLite store: the signing chain (its keys kept, never described), the store
/// trusting its own root for imports, what the App Store Server API reads of a customer, and tokens set.
@Suite struct AppleAPIStoreTests {
    static func stored(_ chain: SigningChain) throws -> StoredSigner {
        StoredSigner(chain: try chain.stored, rootSHA256: try TrustedRoot(chain.root).sha256)
    }

    @Test func theStoresOwnChainSignsWhatItsImportsTrust() throws {
        let (store, chain) = try TrustStoreTests.store()
        let line = try TrustStoreTests.line(chain, uuid: "own-1", original: "77101")
        let (before, _) = try TrustStoreTests.importing([line], into: store)
        #expect(before.rejected == 1, "not trusted before it is the store's chain")
        let (kept, created) = try store.saveSigner(try Self.stored(chain), replacing: false, by: AppleAPIWrites.firstUse, at: TrustStoreTests.now)
        #expect(created && kept.createdBy == "storedesk")
        #expect(try SigningChain(stored: kept.chain).leafKey.publicKey.rawRepresentation == chain.leafKey.publicKey.rawRepresentation)
        let (after, lines) = try TrustStoreTests.importing([line], into: store)
        #expect(after.imported == 1, "\(lines.map(\.outcome))")
        // A second chain made on first use does not replace the first.
        let other = try SigningChain(name: "Other")
        #expect(try store.saveSigner(try Self.stored(other), replacing: false, by: AppleAPIWrites.firstUse, at: TrustStoreTests.now).created == false)
        #expect(try store.signer()?.rootSHA256 == TrustedRoot(chain.root).sha256)
        #expect(!"\(kept)".contains("\(kept.chain.rootKeyDER)"))
        let actions = try store.reader.read { try String.fetchAll($0, sql: "SELECT action FROM audit_log WHERE action LIKE 'signer.%'") }
        #expect(actions == ["signer.create"])
    }

    @Test func aCustomerIsTheTransactionsPlayerInItsAppWithTheirSubscriptionsAndTokens() throws {
        let folder = TemporaryFolder()
        let store = try Fixtures.demoStore(at: folder.path("demo.sqlite"))
        #expect(try store.appStoreCustomer(transactionId: "no-such") == nil)
        let customer = try #require(try store.appStoreCustomer(transactionId: "2000000100000030"))
        #expect(customer.app.id == "1001" && customer.environment == .production)
        #expect(customer.purchases.allSatisfy { $0.transaction.userId == "10000001" && $0.transaction.appId == "1001" })
        #expect(customer.purchases.count == 11)
        #expect(customer.subscriptions.map(\.id).contains("2000000100000030"))
        #expect(customer.purchases.contains { $0.appAccountToken != nil })
        let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        try store.setAppAccountToken(token, originalTransactionId: "2000000100000030", actor: .apiKey("KEY1"), at: TrustStoreTests.now)
        let again = try #require(try store.appStoreCustomer(transactionId: "2000000100000030"))
        let chain = again.purchases.filter { $0.transaction.originalTransactionId == "2000000100000030" }
        #expect(!chain.isEmpty && chain.allSatisfy { $0.appAccountToken == token })
        let audit = try store.auditEntries(action: "apple", limit: 5)
        #expect(audit.map(\.actor) == ["api key KEY1"] && audit.first?.subject == "transaction 2000000100000030")
    }
}
