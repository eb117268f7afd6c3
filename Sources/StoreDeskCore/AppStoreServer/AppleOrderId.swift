/// The order id Apple prints on a customer's receipt (`MK5TTTVWJH`), for StoreDesk's transactions: made
/// from the transaction id and turned back into it, so every transaction has one from the moment it is
/// made, in every backend, without a column or an index, and `GET /inApps/v1/lookup/{orderId}` and
/// `find` go from the receipt to the transaction.
///
/// A numeric id below 36^10 (Apple's shape, and the demo's, the seeder's and the subscription engine's)
/// is scrambled by an affine map modulo 36^10 and written as ten base-36 characters; any other id (the
/// payment simulator's `sim1-T12`) is `X` followed by its UTF-8 bytes in base 32, never ten characters long.
///
///     AppleOrderId.of(transactionId: "2000000100000001")   // ten letters and digits
///     AppleOrderId.transactionId(of: thatOrderId)          // "2000000100000001"
public enum AppleOrderId {
    static let modulus: UInt64 = 3_656_158_440_062_976  // 36^10
    static let multiplier: UInt64 = 1_103_515_245_071  // coprime to 36
    static let offset: UInt64 = 1_234_567_890_123
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    static let base32 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    /// The order id of a transaction.
    public static func of(transactionId: String) -> String {
        if let number = UInt64(transactionId), number < modulus, String(number) == transactionId {
            var value = mulmod(number, multiplier) &+ offset
            if value >= modulus { value -= modulus }
            var characters = [Character](repeating: "0", count: 10)
            for index in stride(from: 9, through: 0, by: -1) {
                characters[index] = digits[Int(value % 36)]
                value /= 36
            }
            return String(characters)
        }
        return "X" + encode32(Array(transactionId.utf8))
    }

    /// The transaction id an order id was made from; nil for text no transaction id makes.
    public static func transactionId(of orderId: String) -> String? {
        let text = orderId.uppercased()
        if text.count == 10 {
            var value: UInt64 = 0
            for character in text {
                guard let digit = digits.firstIndex(of: character) else { return nil }
                value = value * 36 + UInt64(digit)
            }
            let shifted = value >= offset ? value - offset : value + modulus - offset
            return String(mulmod(shifted, inverse))
        }
        guard text.first == "X", let bytes = decode32(text.dropFirst()), !bytes.isEmpty else { return nil }
        guard let id = String(validating: bytes, as: UTF8.self), of(transactionId: id) == text else { return nil }
        return id
    }

    static func mulmod(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return modulus.dividingFullWidth((product.high, product.low)).remainder
    }

    /// `multiplier`'s inverse modulo 36^10 (extended Euclid, once).
    static let inverse: UInt64 = {
        var (oldR, r) = (Int128(multiplier), Int128(modulus))
        var (oldS, s) = (Int128(1), Int128(0))
        while r != 0 {
            let quotient = oldR / r
            (oldR, r) = (r, oldR - quotient * r)
            (oldS, s) = (s, oldS - quotient * s)
        }
        let m = Int128(modulus)
        return UInt64(((oldS % m) + m) % m)
    }()

    static func encode32(_ bytes: [UInt8]) -> String {
        var out: [Character] = []
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                out.append(base32[(buffer >> (bits - 5)) & 31])
                bits -= 5
            }
        }
        if bits > 0 { out.append(base32[(buffer << (5 - bits)) & 31]) }
        return String(out)
    }

    static func decode32(_ text: Substring) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for character in text {
            guard let value = base32.firstIndex(of: character) else { return nil }
            buffer = ((buffer << 5) | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                out.append(UInt8((buffer >> (bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return out
    }
}
