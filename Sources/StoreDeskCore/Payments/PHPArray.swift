/// A key of a PHP array, as the Zend engine stores it.
///
/// PHP turns a key that is a canonical decimal integer ("5", "-3", but not "05", "-0" or "5 ") into an
/// integer key. That matters to us because `ksort` orders integer keys numerically, so the callback
/// signature depends on it.
///
///     PHPKey("10")    // .int(10)
///     PHPKey("010")   // .string("010")
public enum PHPKey: Hashable, Sendable, CustomStringConvertible {
    case int(Int64)
    /// Raw bytes: PHP strings are byte strings and need not be valid UTF-8.
    case string([UInt8])

    /// The key PHP makes of these bytes when it stores them in an array (`ZEND_HANDLE_NUMERIC_STR`).
    public init<Bytes: Collection>(bytes: Bytes) where Bytes.Element == UInt8 {
        let raw = Array(bytes)
        if let number = PHPKey.canonicalInteger(raw) {
            self = .int(number)
        } else {
            self = .string(raw)
        }
    }

    /// The key PHP makes of this text, read as UTF-8.
    public init(_ text: String) { self.init(bytes: Array(text.utf8)) }

    /// The bytes PHP prints for the key (decimal digits for an integer key).
    public var bytes: [UInt8] {
        switch self {
        case .int(let number): Array(String(number).utf8)
        case .string(let raw): raw
        }
    }

    /// The key as text; bytes that are not UTF-8 show as U+FFFD instead of failing.
    public var description: String { String(decoding: bytes, as: UTF8.self) }

    /// `-?[1-9][0-9]*|0` within Int64: what `_zend_handle_numeric_str_ex` accepts.
    private static func canonicalInteger(_ raw: [UInt8]) -> Int64? {
        guard let first = raw.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        let digits = negative ? raw.dropFirst() : raw[...]
        guard let lead = digits.first, PHPBytes.isDigit(lead) else { return nil }
        // Leading zeros ("05") and "-0" stay strings: only "0" itself is the integer zero.
        if lead == UInt8(ascii: "0") && raw.count > 1 { return nil }
        guard digits.allSatisfy(PHPBytes.isDigit) else { return nil }
        return PHPBytes.int64(decimalDigits: Array(digits), negative: negative)
    }
}

/// A PHP value as `parse_str` can produce it: a byte string, or a nested array (from `a[b]=1`).
public indirect enum PHPValue: Hashable, Sendable {
    case string([UInt8])
    case array(PHPArray)

    /// A string value from text, stored as its UTF-8 bytes.
    public init(_ text: String) { self = .string(Array(text.utf8)) }

    /// The bytes of a string value; `nil` for an array.
    public var bytes: [UInt8]? {
        if case .string(let raw) = self { return raw }
        return nil
    }

    /// A string value as text (invalid UTF-8 shows as U+FFFD, never a crash); `nil` for an array.
    public var text: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// The nested array; `nil` for a string.
    public var array: PHPArray? {
        if case .array(let nested) = self { return nested }
        return nil
    }
}

/// An ordered PHP array: insertion order, integer and string keys, and PHP's "next free index" for `[]`.
///
/// It exists so `parse_str`, `ksort` and `http_build_query` can be reproduced byte for byte; a Swift
/// dictionary has no order and cannot tell the integer key 10 from the string key "10".
///
///     var fields = PHPArray([("b", "2"), ("a", "1")])
///     PHPQuery.httpBuildQuery(PHPQuery.ksort(fields))   // "a=1&b=2"
public struct PHPArray: Hashable, Sendable, Sequence {
    /// One key and its value.
    public struct Entry: Hashable, Sendable {
        public var key: PHPKey
        public var value: PHPValue

        public init(key: PHPKey, value: PHPValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var entries: [Entry] = []
    /// Each key's place in `entries`, kept only once the array holds `indexedFrom` entries: a callback's
    /// dozen fields are found faster by comparing keys in turn than by hashing their bytes, and building
    /// the index cost a dictionary (grown four times) per parsed body.
    private var positions: [PHPKey: Int] = [:]
    /// The size from which `positions` is kept (an array of 1000 `parse_str` pairs is looked up by hash).
    static let indexedFrom = 32
    /// `nNextFreeElement`: `nil` until an integer key is stored, when `[]` appends at 0.
    private var nextFreeElement: Int64?

    public init() {}

    /// Pairs in order; a repeated key keeps its first position and takes the last value, as in PHP.
    public init(_ pairs: [(String, String)]) {
        for (key, value) in pairs { self[key] = PHPValue(value) }
    }

    /// A dictionary's pairs, inserted in byte order of the keys so the result never depends on hashing.
    public init(_ fields: [String: String]) {
        self.init(fields.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) })
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [PHPKey] { entries.map(\.key) }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }

    /// Reads, replaces (in place) or appends a value; assigning `nil` removes the key.
    public subscript(key: PHPKey) -> PHPValue? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let value = newValue {
                update(value, for: key)
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// The same, with the key converted as PHP converts it (`"10"` is the integer key 10).
    public subscript(key: String) -> PHPValue? {
        get { self[PHPKey(key)] }
        set { self[PHPKey(key)] = newValue }
    }

    /// A top-level string value as text, or `nil` when absent or an array.
    public func text(_ key: String) -> String? { self[key]?.text }

    /// `zend_hash_update`: an existing key keeps its position; a new key goes last.
    public mutating func update(_ value: PHPValue, for key: PHPKey) {
        if let position = position(of: key) {
            entries[position].value = value
            return
        }
        entries.append(Entry(key: key, value: value))
        if entries.count == Self.indexedFrom {
            reindex()
        } else if entries.count > Self.indexedFrom {
            positions[key] = entries.count - 1
        }
        if case .int(let number) = key, nextFreeElement.map({ number >= $0 }) ?? true {
            nextFreeElement = number < Int64.max ? number + 1 : Int64.max
        }
    }

    /// The key `$array[] = …` would use, or `nil` when PHP would refuse (the next index is taken).
    public var nextAppendKey: PHPKey? {
        let key = PHPKey.int(nextFreeElement ?? 0)
        return position(of: key) == nil ? key : nil
    }

    /// `$array[] = value`; returns false, storing nothing, where PHP's append fails.
    @discardableResult
    public mutating func append(_ value: PHPValue) -> Bool {
        guard let key = nextAppendKey else { return false }
        update(value, for: key)
        return true
    }

    /// `unset($array[key])`: later entries keep their order; the next free index does not go back.
    public mutating func removeValue(forKey key: PHPKey) {
        guard let position = position(of: key) else { return }
        entries.remove(at: position)
        if entries.count < Self.indexedFrom {
            if !positions.isEmpty { positions = [:] }
        } else {
            positions[key] = nil
            for index in position..<entries.count { positions[entries[index].key] = index }
        }
    }

    /// Rebuilds the array from reordered entries (what `ksort` does to the buckets).
    mutating func reorder(_ ordered: [Entry]) {
        entries = ordered
        reindex()
    }

    /// Where the key is in `entries`: by hash in a large array, else by comparing keys in turn.
    private func position(of key: PHPKey) -> Int? {
        if entries.count >= Self.indexedFrom { return positions[key] }
        return entries.firstIndex { $0.key == key }
    }

    /// Makes `positions` agree with `entries` (empty below `indexedFrom`).
    private mutating func reindex() {
        positions = [:]
        guard entries.count >= Self.indexedFrom else { return }
        positions.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() { positions[entry.key] = index }
    }

    /// Two arrays are equal when they hold the same keys and values in the same order.
    public static func == (lhs: PHPArray, rhs: PHPArray) -> Bool { lhs.entries == rhs.entries }

    public func hash(into hasher: inout Hasher) { hasher.combine(entries) }
}

/// Byte classes PHP's C code tests with its own helpers, kept in one place.
enum PHPBytes {
    /// The value of a run of ASCII digits as PHP's integer keys and numbers read it; nil past Int64.
    static func int64(decimalDigits digits: [UInt8], negative: Bool) -> Int64? {
        var magnitude: UInt64 = 0
        for digit in digits {
            let (times, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            if overflowA || overflowB { return nil }
            magnitude = sum
        }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return magnitude <= UInt64(Int64.max) ? -Int64(magnitude) : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }

    /// C `isspace` in the C locale, and PHP's `ZEND_IS_WHITESPACE` for numeric strings: the same six bytes.
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }

    static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        default: byte - 0x61 + 10
        }
    }
}
