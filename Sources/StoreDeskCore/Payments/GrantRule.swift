/// Why the game server refused a callback. Each has the reply the platform sees (never "success",
/// so the platform retries or alerts) and a sentence for the log.
public enum GrantRefusal: Hashable, Sendable {
    case badSignature
    case missingSign
    case missingField(String)
    /// `client_id` names another app: the callback was meant for a different game.
    case wrongApp(String)
    /// An App Store payment for a product this app does not sell.
    case unknownProduct(String)
    /// `gold` is not an amount of yuan above zero.
    case badGold(String)

    /// A stable code for logs and JSON.
    public var code: String {
        switch self {
        case .badSignature: "bad_signature"
        case .missingSign: "missing_sign"
        case .missingField: "missing_field"
        case .wrongApp: "wrong_app"
        case .unknownProduct: "unknown_product"
        case .badGold: "bad_gold"
        }
    }

    /// What the game server answers the platform.
    public var reply: String {
        switch self {
        case .badSignature: "fail: bad sign"
        case .missingSign: "fail: missing sign"
        case .missingField(let name): "fail: missing \(name)"
        case .wrongApp: "fail: wrong app"
        case .unknownProduct: "fail: unknown product"
        case .badGold: "fail: bad gold"
        }
    }
}

/// What the game server decided about one callback.
public struct GrantDecision: Hashable, Sendable {
    public enum Outcome: Hashable, Sendable {
        /// First valid callback for this order: grant this.
        case grant(Grant)
        /// This order was granted before: answer "success" so the platform stops retrying, grant nothing.
        case duplicate(orderId: String)
        /// Refused: grant nothing, log, and answer something other than "success".
        case reject(GrantRefusal)
    }

    public var outcome: Outcome
    /// The body the game server answers the platform with: "success" or "fail: …".
    public var reply: String
    /// One sentence for the console and the log.
    public var reason: String
    /// How the signature check went (with the masked hashed string for display).
    public var verification: CallbackVerification

    /// The grant to record, if any.
    public var grant: Grant? {
        if case .grant(let grant) = outcome { return grant }
        return nil
    }

    /// A rejected callback must be logged; this is the line (the AppKey masked).
    public var logLine: String? {
        guard case .reject(let refusal) = outcome else { return nil }
        let order = verification.fields.text("order_id") ?? "?"
        return "callback rejected (\(refusal.code)) order_id=\(order): \(reason); "
            + "hashed \(verification.maskedHashedString)"
    }
}

/// The game server's handling of a platform callback, as pure functions.
///
/// 1. The signature is checked first (`CallbackSignature.verify`); a bad or missing sign is rejected,
///    logged and answered with "fail: …", never "success". A genuine body is legitimate data (the
///    platform's rule 3): only a field without which nothing can be granted (`fieldsToGrant`, and
///    `gold` for other payments) refuses it; any other missing or odd field is a warning in the log.
/// 2. `client_id` must be this app.
/// 3. De-duplication by `order_id`: the first valid callback grants; a repeat answers "success" and
///    grants nothing (the platform retries until it sees "success").
/// 4. What is granted: `payment` "appstore" grants the product named by `product_id`. Any other payment
///    compares `gold` (yuan) with the product's price: equal grants the product, different (or an
///    unknown product) converts the gold to game currency at the app's `currencyPerYuan`, rounding down
///    so a player is never given more than was paid for.
///
/// `ext` is the game's opaque data and never decides what is granted, whatever it contains.
///
///     let decision = GrantRule.decide(body: body, app: app, products: catalogue,
///                                     alreadyGranted: grantedOrderIds, at: now)
///     decision.reply   // "success"
public enum GrantRule {
    /// The reply for a granted or duplicate callback; anything else makes the platform retry.
    public static let successReply = "success"

    /// What a grant cannot be made without: the order to de-duplicate by, the app, the player and the
    /// product. (`app_id`, the Sid, may be empty: the platform's own `verify_sign` accepts that.)
    public static let fieldsToGrant = ["order_id", "client_id", "user_id", "product_id"]

    /// Decides on a raw callback body.
    public static func decide(
        body: String, app: App, products: [Product], alreadyGranted: (String) -> Bool, at instant: Instant
    ) -> GrantDecision {
        decide(
            verification: CallbackSignature.verify(body: body, appKey: app.appKey), app: app, products: products,
            alreadyGranted: alreadyGranted, at: instant)
    }

    /// Decides on a raw callback body, with the set of order ids granted so far.
    public static func decide(
        body: String, app: App, products: [Product], alreadyGranted: Set<String>, at instant: Instant
    ) -> GrantDecision {
        decide(body: body, app: app, products: products, alreadyGranted: { alreadyGranted.contains($0) }, at: instant)
    }

    /// Decides on a callback already verified against `app.appKey`.
    public static func decide(
        verification: CallbackVerification, app: App, products: [Product], alreadyGranted: (String) -> Bool,
        at instant: Instant
    ) -> GrantDecision {
        func reject(_ refusal: GrantRefusal, _ reason: String) -> GrantDecision {
            GrantDecision(outcome: .reject(refusal), reply: refusal.reply, reason: reason, verification: verification)
        }
        switch verification.verdict {
        case .badSignature: return reject(.badSignature, verification.reason)
        case .missingSign: return reject(.missingSign, verification.reason)
        case .valid: break
        }
        let fields = verification.fields
        var needed = fieldsToGrant
        if fields.text("payment") != ServerCallback.appStorePayment { needed.append("gold") }
        if let missing = needed.first(where: { (fields[$0]?.bytes ?? []).isEmpty }) {
            return reject(
                .missingField(missing),
                "the sign is valid but \(missing) is missing, empty or not a single value: nothing can be granted without it")
        }
        let text = { (name: String) in fields.text(name) ?? "" }
        let orderId = text("order_id")
        let clientId = text("client_id")
        guard clientId == app.id else {
            return reject(.wrongApp(clientId), "client_id \(clientId) is not this app (\(app.id))")
        }
        if alreadyGranted(orderId) {
            return GrantDecision(
                outcome: .duplicate(orderId: orderId), reply: successReply,
                reason: "order \(orderId) was already granted: answered success, granted nothing",
                verification: verification)
        }

        let productId = text("product_id")
        let product = products.first { $0.appId == app.id && $0.id == productId }
        func grant(_ kind: GrantKind, currency: Int, _ reason: String) -> GrantDecision {
            let grant = Grant(
                orderId: orderId, userId: text("user_id"), sid: text("app_id"), roleId: text("role_id"),
                productId: productId, quantity: 1, kind: kind, currencyAmount: currency, source: .purchase,
                grantedAt: instant)
            return GrantDecision(
                outcome: .grant(grant), reply: successReply, reason: reason, verification: verification)
        }

        if text("payment") == ServerCallback.appStorePayment {
            guard let product else {
                return reject(
                    .unknownProduct(productId), "App Store payment for \(productId), which \(app.name) does not sell")
            }
            return grant(.product, currency: 0, "App Store payment: granted \(product.id) by product_id")
        }
        let goldText = text("gold")
        guard let goldCents = goldCents(goldText), goldCents > 0 else {
            return reject(.badGold(goldText), "gold '\(goldText)' is not an amount of yuan above zero")
        }
        if let product, product.priceCents == goldCents {
            return grant(
                .product, currency: 0, "gold \(goldText) equals the price of \(product.id): granted the product")
        }
        let currency = currencyAmount(goldCents: goldCents, perYuan: app.currencyPerYuan)
        let why = product.map { "gold \(goldText) differs from the price of \($0.id) (\($0.priceText))" }
            ?? "\(productId) is not in the catalogue"
        return grant(
            .currency, currency: currency, "\(why): converted to \(currency) at \(app.currencyPerYuan) per yuan")
    }

    /// Reads `gold` as yuan: "6", "6.0", "6.00" → 600 cents. More than two decimals, signs, exponents
    /// or spaces are refused rather than rounded: money is never guessed.
    public static func goldCents(_ text: String) -> Int? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.utf8.allSatisfy(isDigit), whole.count <= 12 else {
            return nil
        }
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        guard fraction.count <= 2, fraction.utf8.allSatisfy(isDigit), parts.count == 1 || !fraction.isEmpty else {
            return nil
        }
        while fraction.count < 2 { fraction += "0" }
        guard let yuan = Int(whole), let cents = Int(fraction) else { return nil }
        return yuan * 100 + cents
    }

    /// Game currency for a payment: `floor(cents × perYuan / 100)`.
    public static func currencyAmount(goldCents: Int, perYuan: Int) -> Int {
        let (product, overflow) = goldCents.multipliedReportingOverflow(by: perYuan)
        return overflow ? Int.max : product / 100
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
