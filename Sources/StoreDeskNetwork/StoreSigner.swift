import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// The store's own signing chain: made (`storedesk signer create`, or on first use by `serve` and
/// `signer root`), kept in the store (`AppleAPIStore`), and read back as a `SigningChain` that signs
/// what the App Store Server API returns. Its keys stay in the store: nothing here prints them.
///
///     let chain = try StoreSigner.chain(of: store, now: now)   // made and kept when the store has none
///     let jws = try chain.signTransaction(payload)
public enum StoreSigner {
    /// The name the store's chains carry in their subjects.
    public static let name = "StoreDesk Local"

    /// A new chain as the store keeps it.
    public static func make() throws -> (chain: SigningChain, stored: StoredSigner) {
        let chain = try SigningChain(name: name)
        return (chain, try stored(chain))
    }

    /// A chain as the store keeps it: certificates, keys, and the root's SHA-256.
    public static func stored(_ chain: SigningChain) throws -> StoredSigner {
        StoredSigner(chain: try chain.stored, rootSHA256: try TrustedRoot(chain.root).sha256)
    }

    /// The chain a store kept, checked as a chain (each key its certificate's, each certificate issued by the next).
    public static func chain(_ signer: StoredSigner) throws -> SigningChain {
        do {
            return try SigningChain(stored: signer.chain)
        } catch {
            throw StoreError.invalidArgument("the store's signing chain cannot be used: \(error.description)")
        }
    }

    /// The store's chain, made and kept first when it has none (as `AppleAPIWrites.firstUse`).
    public static func chain(of store: any AppleAPIStore, now: Instant) throws -> (chain: SigningChain, created: Bool) {
        if let kept = try store.signer() { return (try chain(kept), false) }
        let made = try make()
        let (kept, created) = try store.saveSigner(made.stored, replacing: false, by: AppleAPIWrites.firstUse, at: now)
        return (created ? made.chain : try chain(kept), created)
    }

    /// The root a game server trusts instead of Apple's, as a `TrustedRoot`.
    public static func root(_ signer: StoredSigner) throws -> TrustedRoot {
        do {
            return try TrustRootFile.root(from: Data(signer.chain.rootDER))
        } catch {
            throw StoreError.invalidArgument("the store's signing root cannot be read: \(error.reason)")
        }
    }
}
