/// A signing chain's bytes as a store keeps them: each certificate's DER and each private key's PKCS#8
/// DER. A plain value (StoreDeskTrust reads it as a `SigningChain`, `SigningChain.Stored`; a store keeps it
/// in `StoredSigner`). The keys are in the bytes, never in a description: printing, `dump` and string
/// interpolation show the certificates' sizes only.
public struct SigningChainDER: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var leafDER: [UInt8]
    public var intermediateDER: [UInt8]
    public var rootDER: [UInt8]
    /// PKCS#8 DER, as `openssl pkey` writes a key.
    public var leafKeyDER: [UInt8]
    public var intermediateKeyDER: [UInt8]
    public var rootKeyDER: [UInt8]

    public init(
        leafDER: [UInt8], intermediateDER: [UInt8], rootDER: [UInt8], leafKeyDER: [UInt8], intermediateKeyDER: [UInt8],
        rootKeyDER: [UInt8]
    ) {
        self.leafDER = leafDER
        self.intermediateDER = intermediateDER
        self.rootDER = rootDER
        self.leafKeyDER = leafKeyDER
        self.intermediateKeyDER = intermediateKeyDER
        self.rootKeyDER = rootKeyDER
    }

    public var description: String {
        "signing chain (leaf \(leafDER.count), intermediate \(intermediateDER.count), root \(rootDER.count) bytes of certificates; "
            + "3 private keys not shown)"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["leafDER": leafDER.count, "intermediateDER": intermediateDER.count, "rootDER": rootDER.count])
    }
}
