/// A callback body made from `name=value` lines a person typed (`storedesk callback sign`), signed over
/// exactly what the PHP game server will read from it.
///
/// PHP does not read names as they are written: `parse_str` turns `.` and spaces in a top-level name
/// into `_` (`a.b` → `a_b`), builds arrays from brackets (`a[]` appends, `a[x]` nests), turns an
/// unbalanced `[` into `_`, drops leading spaces, and keeps only the last of two values for one name.
/// Signing the typed names as they are therefore gave signs PHP rejects. Here the body is written as
/// typed, in order, and the sign is computed over `parse_str` of that body (ksorted and re-encoded, as
/// the game server verifies), so `callback verify` and the PHP game server accept every body signed here.
///
/// A line PHP would lose without a trace is refused with the reason, since the body could not say what
/// the person meant: a name PHP drops (empty, `[x]` alone, nested deeper than 64), one PHP reads as
/// `sign`, one whose value a later line overwrites, and more fields than PHP reads (`max_input_vars`).
///
///     let callback = try TypedCallback(fields: [.init(line: 1, name: "a.b", value: "1")], appKey: key)
///     callback.body   // "a.b=1&sign=…", which PHP reads as a_b=1 and verifies
public struct TypedCallback: Hashable, Sendable {
    /// One typed line.
    public struct Field: Hashable, Sendable {
        /// 1-based, as the input shows it.
        public var line: Int
        public var name: String
        public var value: String

        public init(line: Int, name: String, value: String) {
            self.line = line
            self.name = name
            self.value = value
        }
    }

    /// Why a line cannot be signed, naming the line and what PHP would do with it.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// The form-encoded body, the typed fields in order, then `sign`.
    public var body: String
    /// The sign, lower-case hex MD5 of the ksorted `parse_str` of the fields and the AppKey.
    public var sign: String

    /// The most fields a body may carry: PHP reads 1000 pairs (`max_input_vars`) and the sign comes last.
    public static let largestFieldCount = PHPQuery.maxInputVars - 1

    /// Signs the fields as PHP will read them; a line named `sign` is skipped (the sign is computed).
    public init(fields: [Field], appKey: String) throws(Refusal) {
        let signed = fields.filter { $0.name != CallbackSignature.signField }
        if signed.count > Self.largestFieldCount, let first = signed.dropFirst(Self.largestFieldCount).first {
            throw Refusal(
                line: first.line,
                reason: "PHP reads at most \(PHPQuery.maxInputVars) fields (max_input_vars), and the sign must be one of them: "
                    + "sign at most \(Self.largestFieldCount) fields")
        }
        var body: [UInt8] = []
        var pairs: [[UInt8]] = []
        var leaves = 0
        for field in signed {
            var pair: [UInt8] = []
            PHPQuery.urlencode(field.name.utf8, into: &pair)
            pair.append(UInt8(ascii: "="))
            PHPQuery.urlencode(field.value.utf8, into: &pair)
            let alone = PHPQuery.parseStr(bytes: pair)
            guard Self.leafCount(alone) == 1 else {
                throw Refusal(line: field.line, reason: "PHP's parse_str drops the name '\(field.name)': \(Self.whyDropped(field.name))")
            }
            if alone.keys.first == PHPKey(CallbackSignature.signField) {
                throw Refusal(
                    line: field.line,
                    reason: "PHP reads the name '\(field.name)' as 'sign', the field that carries the signature: rename it")
            }
            let candidate = body + (body.isEmpty ? [] : [UInt8(ascii: "&")]) + pair
            let count = Self.leafCount(PHPQuery.parseStr(bytes: candidate))
            guard count == leaves + 1 else {
                let earlier = pairs.firstIndex { Self.leafCount(PHPQuery.parseStr(bytes: $0 + [UInt8(ascii: "&")] + pair)) < 2 }
                let other = earlier.map { signed[$0] }
                throw Refusal(
                    line: field.line,
                    reason: "PHP reads the name '\(field.name)' as the same field as "
                        + (other.map { "line \($0.line) ('\($0.name)')" } ?? "an earlier line")
                        + " and keeps only one of the values: give each field its own name")
            }
            body = candidate
            pairs.append(pair)
            leaves = count
        }
        let parsed = PHPQuery.parseStr(bytes: body)
        sign = CallbackSignature.md5Hex(CallbackSignature.signedQuery(fields: parsed) + appKey)
        self.body = String(decoding: body, as: UTF8.self) + (body.isEmpty ? "" : "&") + CallbackSignature.signField + "=" + sign
    }

    /// How many single values an array holds, nested arrays included.
    static func leafCount(_ array: PHPArray) -> Int {
        array.reduce(0) { total, entry in
            switch entry.value {
            case .string: total + 1
            case .array(let nested): total + leafCount(nested)
            }
        }
    }

    /// Why PHP keeps nothing of a name, in its words.
    static func whyDropped(_ name: String) -> String {
        let trimmed = name.drop { $0 == " " }
        if trimmed.isEmpty { return "it is empty once PHP drops its leading spaces" }
        if trimmed.first == "[" { return "it has no name before its first '['" }
        if name.utf8.contains(0) { return "it has nothing before its NUL byte" }
        if name.filter({ $0 == "[" }).count > PHPQuery.maxInputNestingLevel {
            return "it nests more than \(PHPQuery.maxInputNestingLevel) levels (max_input_nesting_level)"
        }
        return "PHP would turn it into a __Host- or __Secure- name, which it refuses"
    }
}
