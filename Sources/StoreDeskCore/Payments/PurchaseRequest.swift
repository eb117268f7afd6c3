/// A validated `requestProduct` call from the game client: what the player wants to buy and for whom.
///
/// The client sends loosely typed strings; this is the point where they are checked, so everything
/// after (the transaction, the platform order, the callback) can rely on them.
///
///     let input = PurchaseRequest.Input(fields: ["Product_Name": "60 Gems", "Product_Id": "gems.60",
///                                                "Product_Price": "600", "Sid": "s1"])
///     switch PurchaseRequest.validate(input) {
///     case .success(let request): …                   // request.priceCents == 600
///     case .failure(let refused): refused.refusals    // [.extTooLong], with codes and reasons
///     }
public struct PurchaseRequest: Hashable, Sendable {
    public var productName: String
    public var productId: String
    /// Product_Price, in cents (fen): an integer, never a decimal, so no rounding can creep in.
    public var priceCents: Int
    /// The game server (Sid) the purchase is delivered to; callback field `app_id`.
    public var sid: String
    public var roleId: String
    /// The game's own order id; callback field `app_order_id`.
    public var orderId: String
    /// Opaque data the game gets back in the callback. It never decides what is granted.
    public var ext: String

    /// EXT's limit, counted in Unicode code points (what PHP's `mb_strlen` and a MySQL utf8mb4
    /// `VARCHAR(512)` column count), not bytes or grapheme clusters.
    public static let maxExtLength = 512

    public init(
        productName: String, productId: String, priceCents: Int, sid: String, roleId: String = "",
        orderId: String = "", ext: String = ""
    ) {
        self.productName = productName
        self.productId = productId
        self.priceCents = priceCents
        self.sid = sid
        self.roleId = roleId
        self.orderId = orderId
        self.ext = ext
    }

    /// The raw request as the client sent it; `nil` means the field was not sent at all.
    public struct Input: Hashable, Sendable {
        public var productName: String?
        public var productId: String?
        public var productPrice: String?
        public var sid: String?
        public var roleId: String?
        public var orderId: String?
        public var ext: String?

        public init(
            productName: String? = nil, productId: String? = nil, productPrice: String? = nil, sid: String? = nil,
            roleId: String? = nil, orderId: String? = nil, ext: String? = nil
        ) {
            self.productName = productName
            self.productId = productId
            self.productPrice = productPrice
            self.sid = sid
            self.roleId = roleId
            self.orderId = orderId
            self.ext = ext
        }

        /// From the client's own field names: `Product_Name`, `Product_Id`, `Product_Price`, `Sid`,
        /// `Role_Id`, `OrderId`, `EXT`.
        public init(fields: [String: String]) {
            self.init(
                productName: fields["Product_Name"], productId: fields["Product_Id"],
                productPrice: fields["Product_Price"], sid: fields["Sid"], roleId: fields["Role_Id"],
                orderId: fields["OrderId"], ext: fields["EXT"])
        }
    }

    /// Why a field was refused. The raw values are stable codes for logs, JSON and tests.
    public enum Refusal: String, Hashable, Sendable, CaseIterable {
        case productNameMissing = "product_name_missing"
        case productIdMissing = "product_id_missing"
        case productPriceMissing = "product_price_missing"
        case productPriceNotInteger = "product_price_not_integer"
        case productPriceNotPositive = "product_price_not_positive"
        case sidMissing = "sid_missing"
        case sidInvalidCharacters = "sid_invalid_characters"
        case extTooLong = "ext_too_long"

        public var code: String { rawValue }

        /// The client's name for the refused field.
        public var field: String {
            switch self {
            case .productNameMissing: "Product_Name"
            case .productIdMissing: "Product_Id"
            case .productPriceMissing, .productPriceNotInteger, .productPriceNotPositive: "Product_Price"
            case .sidMissing, .sidInvalidCharacters: "Sid"
            case .extTooLong: "EXT"
            }
        }

        /// One sentence naming the field, for the console and the client.
        public var reason: String {
            switch self {
            case .productNameMissing: "Product_Name is required and was empty or not sent"
            case .productIdMissing: "Product_Id is required and was empty or not sent"
            case .productPriceMissing: "Product_Price is required and was empty or not sent"
            case .productPriceNotInteger:
                "Product_Price must be a whole number of cents (600 for ¥6.00), not a decimal or text"
            case .productPriceNotPositive: "Product_Price must be greater than zero cents"
            case .sidMissing: "Sid is required and was empty or not sent"
            case .sidInvalidCharacters: "Sid may contain only letters, digits, '-' and '_'"
            case .extTooLong: "EXT may be at most \(PurchaseRequest.maxExtLength) characters"
            }
        }
    }

    /// Every refused field of one request, in field order.
    public struct Refused: Error, Hashable, Sendable {
        public var refusals: [Refusal]

        public var reason: String { refusals.map(\.reason).joined(separator: "; ") }
    }

    /// Checks every field and reports all refusals at once, so the client can fix them in one go.
    ///
    /// Rules: Product_Name, Product_Id, Product_Price and Sid are required (empty or all-whitespace
    /// counts as missing); Product_Price is an integer number of cents above zero (digits with an
    /// optional leading "-", nothing else); Sid contains only ASCII letters, digits, '-' and '_'
    /// (it names a server and travels in URLs and file names, so nothing that needs escaping);
    /// Role_Id and OrderId are optional; EXT has at most 512 code points.
    public static func validate(_ input: Input) -> Result<PurchaseRequest, Refused> {
        var refusals: [Refusal] = []
        let name = present(input.productName)
        if name == nil { refusals.append(.productNameMissing) }
        let productId = present(input.productId)
        if productId == nil { refusals.append(.productIdMissing) }

        var price: Int?
        if let text = present(input.productPrice) {
            switch parseCents(text) {
            case .some(let cents) where cents > 0: price = cents
            case .some: refusals.append(.productPriceNotPositive)
            case .none: refusals.append(.productPriceNotInteger)
            }
        } else {
            refusals.append(.productPriceMissing)
        }

        let sid = present(input.sid)
        if let sid {
            if !sid.unicodeScalars.allSatisfy(isSidScalar) { refusals.append(.sidInvalidCharacters) }
        } else {
            refusals.append(.sidMissing)
        }

        let ext = input.ext ?? ""
        if ext.unicodeScalars.count > maxExtLength { refusals.append(.extTooLong) }

        guard refusals.isEmpty, let name, let productId, let price, let sid else {
            return .failure(Refused(refusals: refusals))
        }
        return .success(
            PurchaseRequest(
                productName: name, productId: productId, priceCents: price, sid: sid, roleId: input.roleId ?? "",
                orderId: input.orderId ?? "", ext: ext))
    }

    /// The value when it has anything other than whitespace in it.
    private static func present(_ value: String?) -> String? {
        guard let value, value.contains(where: { !$0.isWhitespace }) else { return nil }
        return value
    }

    /// "600" → 600, "-5" → -5; "6.00", "6e2", " 600", "+600" → nil.
    private static func parseCents(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func isSidScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_": true
        default: false
        }
    }
}
