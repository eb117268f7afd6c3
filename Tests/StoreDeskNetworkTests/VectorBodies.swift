import Foundation
import StoreDeskCore

/// One body made from each of the 139 PHP vectors (Tests/StoreDeskCoreTests/Vectors), with the AppKey
/// it is verified with and PHP's own verdict where the vector records one.
struct VectorBodies: Sendable {
    var name: String
    var key: String
    var bytes: [UInt8]
    /// `valid`, `bad_signature` or `missing_sign` as PHP's verify_sign answered; nil for parse_str vectors.
    var phpVerdict: String?
    /// Whether StoreDesk's game server can grant it (every field a grant needs, a product it sells).
    var grantable: Bool

    var body: [UInt8] { bytes }

    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("StoreDeskCoreTests/Vectors/callback_vectors.json")

    static let app = App(
        id: "app_galaxy", name: "Galaxy Quest", bundleId: "com.example.galaxy", appKey: "k3y-S3cr3t-2026", currencyPerYuan: 10,
        restoreOwnership: .transfer, gracePeriodDays: 0)
    static let products = [("com.example.gems.60", 600), ("com.example.gems.300", 3000), ("com.example.tip", 99)].map {
        Product(id: $0.0, appId: "app_galaxy", name: $0.0, type: .consumable, priceCents: $0.1, currency: "CNY")
    }

    static func load() throws -> [VectorBodies] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
        func list(_ name: String) -> [[String: Any]] { object[name] as? [[String: Any]] ?? [] }
        func hex(_ text: String) -> [UInt8] {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
                bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
                index = next
            }
            return bytes
        }
        let mainKey = app.appKey
        var bodies: [VectorBodies] = []
        func add(_ name: String, _ key: String, _ bytes: [UInt8], _ verdict: String?) {
            var keyed = app
            keyed.appKey = key
            let decision = GrantRule.decide(
                verification: CallbackSignature.verify(bodyBytes: bytes, appKey: key), app: keyed, products: products,
                alreadyGranted: { _ in false }, at: Instant(millis: 0))
            bodies.append(VectorBodies(name: name, key: key, bytes: bytes, phpVerdict: verdict, grantable: decision.grant != nil))
        }
        for v in list("verify") {
            add("verify: \(v["name"] ?? "")", v["app_key"] as? String ?? "", hex(v["body_hex"] as? String ?? ""), v["verdict"] as? String)
        }
        for v in list("sign") {
            add("sign: \(v["name"] ?? "")", v["app_key"] as? String ?? "", Array((v["body"] as? String ?? "").utf8), "valid")
        }
        for v in list("callbacks") {
            let key = (v["app"] as? [String: Any])?["app_key"] as? String ?? ""
            add("callback: \(v["name"] ?? "")", key, Array((v["body"] as? String ?? "").utf8), "valid")
        }
        for v in list("parse_str") {
            add("parse_str: \(v["name"] ?? "")", mainKey, hex(v["body_hex"] as? String ?? ""), nil)
        }
        // urlencode: the input bytes as EXT of a callback signed with PHP's rules.
        for (index, v) in list("urlencode").enumerated() {
            var fields = PHPArray(base(order: "9100\(index)"))
            fields["ext"] = .string(hex(v["input_hex"] as? String ?? ""))
            let sign = CallbackSignature.sign(fields: fields, appKey: mainKey)
            fields["sign"] = PHPValue(sign)
            add("urlencode as ext: \(v["name"] ?? "")", mainKey, Array(PHPQuery.httpBuildQuery(fields).utf8), "valid")
        }
        // strcasecmp: a sign that compares equal ignoring case verifies (upper case); one that does not, fails.
        for (index, v) in list("strcasecmp").enumerated() {
            let fields = base(order: "9200\(index)")
            let callback = ServerCallback(fields: fields.map { .init($0.0, $0.1) }, appKey: mainKey)
            let equal = (v["result"] as? Int) == 0
            let sent = equal ? callback.sign.uppercased() : String(callback.sign.dropLast()) + "G"
            let body = String(callback.body.dropLast(callback.sign.count)) + sent
            add("strcasecmp \(index): sign \(equal ? "in upper case" : "not equal ignoring case")", mainKey, Array(body.utf8), equal ? "valid" : "bad_signature")
        }
        return bodies
    }

    static func base(order: String) -> [(String, String)] {
        [
            ("order_id", order), ("payment", "appstore"), ("sub_payment", "Sandbox"), ("user_id", "u_1"), ("client_id", "app_galaxy"),
            ("app", "Galaxy Quest"), ("app_id", "s1"), ("app_order_id", "G"), ("role_id", "r1"), ("product_id", "com.example.gems.60"),
            ("ext", ""), ("timestamp", "1772352000"),
        ]
    }
}
