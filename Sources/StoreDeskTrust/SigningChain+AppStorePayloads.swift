import Foundation
import StoreDeskCore

/// Apple's signed data made by a chain of the store's own: a transaction, a renewal info and an App Store
/// Server Notification V2, each a compact JWS with header `{"alg":"ES256","x5c":[leaf, intermediate, root]}`
/// as Apple signs them, its payload under Apple's field names. `AppStoreSignatureVerifier` trusting
/// `root`, and Apple's own `SignedDataVerifier` given `root` as its root certificate, accept them.
///
///     let transaction = try chain.signTransaction(payload)              // a `signedTransactionInfo`
///     let body = try chain.notificationBody(notification, transaction: payload, renewal: renewal)
///     // {"signedPayload":"eyJ…"}, as Apple POSTs it to an app's notification URL
extension SigningChain {
    /// Signs a `JWSTransactionDecodedPayload` (a `signedTransaction` / `signedTransactionInfo`).
    public func signTransaction(_ payload: JWSTransactionDecodedPayload) throws -> String {
        try sign(Self.appleJSON(payload))
    }

    /// Signs a `JWSRenewalInfoDecodedPayload` (a `signedRenewalInfo`).
    public func signRenewalInfo(_ payload: JWSRenewalInfoDecodedPayload) throws -> String {
        try sign(Self.appleJSON(payload))
    }

    /// Signs a `ResponseBodyV2DecodedPayload` as it is (its `data` already holding any signed infos).
    public func signNotification(_ payload: ResponseBodyV2DecodedPayload) throws -> String {
        try sign(Self.appleJSON(payload))
    }

    /// Signs `transaction` and `renewal` as JWS of their own into the notification's
    /// `data.signedTransactionInfo` and `data.signedRenewalInfo`, then the notification: its `signedPayload`.
    public func signNotification(
        _ payload: ResponseBodyV2DecodedPayload, transaction: JWSTransactionDecodedPayload?,
        renewal: JWSRenewalInfoDecodedPayload?
    ) throws -> String {
        var notification = payload
        var data = notification.data ?? NotificationData()
        if let transaction { data.signedTransactionInfo = try signTransaction(transaction) }
        if let renewal { data.signedRenewalInfo = try signRenewalInfo(renewal) }
        notification.data = data
        return try signNotification(notification)
    }

    /// The body Apple POSTs to an app's notification URL: `{"signedPayload":"<JWS>"}`.
    public func notificationBody(
        _ payload: ResponseBodyV2DecodedPayload, transaction: JWSTransactionDecodedPayload? = nil,
        renewal: JWSRenewalInfoDecodedPayload? = nil
    ) throws -> Data {
        let signed = try signNotification(payload, transaction: transaction, renewal: renewal)
        return try Self.appleJSON(["signedPayload": signed])
    }

    /// Apple's JSON: nil fields left out, slashes as they are, keys sorted so the same payload signs the same bytes.
    static func appleJSON(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}

extension SigningChain {
    /// Signs an `AppTransactionDecodedPayload` (a `signedAppTransactionInfo`).
    public func signAppTransaction(_ payload: AppTransactionDecodedPayload) throws -> String {
        try sign(Self.appleJSON(payload))
    }
}
