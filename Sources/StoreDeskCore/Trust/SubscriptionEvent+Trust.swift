extension SubscriptionEvent {
    /// How far the event is trusted, in one line an operator reads beside it:
    /// `verified: signed by 'CN=…' (serial 0c) under Apple Root CA - G3`, or why it is not.
    public var trustDescription: String {
        if isStoreRecord { return Self.storeRecordLabel }
        if isSupportAction { return Self.supportActionLabel }
        guard provenance == .verified, let signer else { return provenance.label }
        let root = signer.isApple ? "Apple Root CA - G3" : "'\(signer.rootSubject)' (not Apple's root)"
        return "verified: signed by '\(signer.leafSubject)' (serial \(signer.leafSerial)) under \(root)"
    }

    /// What a `SubscriptionBaseline` event is instead of a notification.
    public static let storeRecordLabel = "the store's record before any notification"

    /// What a notification support's own action wrote is (the audit log says who and why).
    public static let supportActionLabel = "support action (the audit log says who and why)"

    /// The short mark a list shows beside the event: `✓ verified`, `✓ verified (not Apple)`, or the
    /// label of what it is instead (`decoded, not signed`, `signed, NOT verified`, ...).
    public var trustMark: String {
        if isStoreRecord { return Self.storeRecordLabel }
        if isSupportAction { return Self.supportActionLabel }
        guard provenance == .verified else { return provenance.label }
        return signer?.isApple == true ? "✓ verified" : "✓ verified (not Apple)"
    }
}

/// How far a subscription's notifications are trusted, together: `4 verified (test root)`,
/// `2 verified, 1 decoded`, and who signed them. The least trusted kind present says how the whole reads.
public struct TrustSummary: Hashable, Sendable {
    public var counts: [SubscriptionEvent.Provenance: Int] = [:]
    /// The store's record of the chain before its first notification (`SubscriptionBaseline`): no
    /// notification, so counted apart.
    public var storeRecords = 0
    /// Notifications support's own actions wrote (a refund, its reversal, an extension): not Apple's,
    /// not a simulation, so counted apart too (the audit log says who and why).
    public var supportActions = 0
    /// The distinct signers of the verified ones, first seen first.
    public var signers: [Signer] = []

    public init(_ events: [SubscriptionEvent]) {
        for event in events {
            if event.isStoreRecord {
                storeRecords += 1
                continue
            }
            if event.isSupportAction {
                supportActions += 1
                continue
            }
            counts[event.provenance, default: 0] += 1
            if let signer = event.signer, !signers.contains(signer) { signers.append(signer) }
        }
    }

    /// The least trusted kind present: unverified before decoded before StoreKit testing before
    /// simulated before verified; nil without notifications.
    public var weakest: SubscriptionEvent.Provenance? {
        [.unverifiedJWS, .decodedJSON, .storeKitTesting, .simulated, .verified].first { counts[$0, default: 0] > 0 }
    }

    /// Whether every verified notification chained to Apple's own root.
    public var allApple: Bool { signers.allSatisfy(\.isApple) }

    /// `4 verified`, `4 verified (test root)`, `2 verified, 1 decoded, not signed`.
    public var text: String {
        let order: [SubscriptionEvent.Provenance] = [.verified, .unverifiedJWS, .decodedJSON, .storeKitTesting, .simulated]
        let kinds = order.compactMap { provenance -> String? in
            guard let count = counts[provenance], count > 0 else { return nil }
            if provenance == .verified { return "\(count) verified" + (allApple ? "" : " (test root)") }
            return "\(count) \(provenance.label)"
        }
        let support = supportActions > 0 ? ["\(supportActions) support action\(supportActions == 1 ? "" : "s")"] : []
        return (kinds + support + (storeRecords > 0 ? ["\(storeRecords) from the store's record"] : [])).joined(separator: ", ")
    }
}

extension Signer {
    /// `'CN=…' (serial 0c) under Apple Root CA - G3`.
    public var description: String {
        "'\(leafSubject)' (serial \(leafSerial)) under " + (isApple ? "Apple Root CA - G3" : "'\(rootSubject)' (not Apple's root)")
    }
}
