extension SubscriptionEvent {
    /// How far the event is trusted, in one line an operator reads beside it:
    /// `verified: signed by 'CN=…' (serial 0c) under Apple Root CA - G3`, or why it is not.
    public var trustDescription: String {
        guard provenance == .verified, let signer else { return provenance.label }
        let root = signer.isApple ? "Apple Root CA - G3" : "'\(signer.rootSubject)' (not Apple's root)"
        return "verified: signed by '\(signer.leafSubject)' (serial \(signer.leafSerial)) under \(root)"
    }

    /// The short mark a list shows beside the event: `✓ verified`, `✓ verified (not Apple)`, or the
    /// label of what it is instead (`decoded, not signed`, `signed, NOT verified`, ...).
    public var trustMark: String {
        guard provenance == .verified else { return provenance.label }
        return signer?.isApple == true ? "✓ verified" : "✓ verified (not Apple)"
    }
}
