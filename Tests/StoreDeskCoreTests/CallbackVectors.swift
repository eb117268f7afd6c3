import Foundation
import StoreDeskCore
import Testing

/// The vectors `Vectors/generate.php` printed with the real php-cli (see that script).
struct CallbackVectors: Decodable, Sendable {
    struct URLEncode: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var inputHex: String
        var output: String
        var testDescription: String { name }
    }

    struct StrCaseCmp: Decodable, Sendable, CustomTestStringConvertible {
        var aHex: String
        var bHex: String
        var result: Int
        var testDescription: String { "\(aHex) vs \(bHex)" }
    }

    struct ParseStr: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var bodyHex: String
        var result: VectorValue
        var query: String
        var ksortedQuery: String
        var testDescription: String { name }
    }

    struct Sign: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var appKey: String
        var fields: [[String]]
        var query: String
        var hashed: String
        var sign: String
        var body: String
        var testDescription: String { name }
    }

    struct Verify: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var appKey: String
        var bodyHex: String
        var body: String?
        var query: String
        var hashed: String
        var expectedSign: String
        var receivedSignHex: String?
        var receivedIsArray: Bool
        var verdict: String
        var missingField: String?
        var testDescription: String { name }
    }

    struct Callback: Decodable, Sendable, CustomTestStringConvertible {
        struct Order: Decodable, Sendable {
            var id: String
            var payment: String
            var subPayment: String
            var userId: String
            var productId: String
            var amountCents: Int
            var sid: String
            var roleId: String
            var appOrderId: String
            var ext: String
        }

        struct AppFields: Decodable, Sendable {
            var id: String
            var name: String
            var appKey: String
        }

        var name: String
        var order: Order
        var app: AppFields
        var timestampMillis: Int64
        var sign: String
        var body: String
        var testDescription: String { name }
    }

    var phpVersion: String
    var urlencode: [URLEncode]
    var strcasecmp: [StrCaseCmp]
    var parseStr: [ParseStr]
    var sign: [Sign]
    var verify: [Verify]
    var callbacks: [Callback]

    /// Loads the committed JSON from the test bundle's `Vectors` folder.
    static func load() throws -> CallbackVectors {
        guard let folder = Bundle.module.url(forResource: "Vectors", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        let data = try Data(contentsOf: folder.appendingPathComponent("callback_vectors.json"))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(CallbackVectors.self, from: data)
    }

    /// The vectors, or none when they cannot be read (the `vectorsLoad` test then fails loudly).
    static let shared: CallbackVectors? = try? load()
}

/// A PHP value as the generator writes it: a hex string, or a list of ["i:5" | "s:<hex>", value] pairs.
struct VectorValue: Decodable, Sendable {
    var value: PHPValue

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let hex = try? container.decode(String.self) {
            value = .string(try Hex.bytes(hex))
            return
        }
        var array = PHPArray()
        for pair in try container.decode([Pair].self) { array.update(pair.value, for: pair.key) }
        value = .array(array)
    }

    private struct Pair: Decodable {
        var key: PHPKey
        var value: PHPValue

        init(from decoder: Decoder) throws {
            var container = try decoder.unkeyedContainer()
            let tag = try container.decode(String.self)
            if tag.hasPrefix("i:"), let number = Int64(tag.dropFirst(2)) {
                key = .int(number)
            } else if tag.hasPrefix("s:") {
                key = .string(try Hex.bytes(String(tag.dropFirst(2))))
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "bad key tag \(tag)")
            }
            value = try container.decode(VectorValue.self).value
        }
    }
}

enum Hex {
    struct Invalid: Error {}

    static func bytes(_ hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { throw Invalid() }
        var out: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { throw Invalid() }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    static func string(_ bytes: [UInt8]) -> String {
        let table = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [table[Int($0 >> 4)], table[Int($0 & 0x0F)]] }, as: UTF8.self)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}

/// A small catalogue shared by the payment tests.
enum PaymentFixtures {
    static let app = App(
        id: "app_galaxy", name: "Galaxy Quest", bundleId: "com.example.galaxy", appKey: "k3y-S3cr3t-2026",
        currencyPerYuan: 10, restoreOwnership: .transfer, gracePeriodDays: 0)

    static let gems60 = Product(
        id: "com.example.gems.60", appId: "app_galaxy", name: "60 Gems", type: .consumable, priceCents: 600,
        currency: "CNY", grantsCurrency: 60)
    static let gems300 = Product(
        id: "com.example.gems.300", appId: "app_galaxy", name: "300 Gems", type: .consumable, priceCents: 3000,
        currency: "CNY", grantsCurrency: 300)
    static let noAds = Product(
        id: "com.example.noads", appId: "app_galaxy", name: "No Ads", type: .nonConsumable, priceCents: 1800,
        currency: "CNY")
    static let otherAppGems = Product(
        id: "com.example.gems.6480", appId: "app_other", name: "6480 Gems", type: .consumable, priceCents: 64800,
        currency: "CNY")

    static let catalogue = [gems60, gems300, noAds, otherAppGems]

    static let now = Instant(millis: 1_772_352_000_000)
}
