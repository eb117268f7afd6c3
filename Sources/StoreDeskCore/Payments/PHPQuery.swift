/// PHP's form-encoding functions, reimplemented byte for byte.
///
/// The platform's callback signature is defined by what PHP 8 does (`urlencode`, `http_build_query`,
/// `ksort`, `parse_str`, `strcasecmp`), not by any RFC, so StoreDesk copies PHP exactly; the tests check
/// every function against vectors produced by the real `php-cli` (Tests/StoreDeskCoreTests/Vectors).
///
///     PHPQuery.urlencode("a b+中")                              // "a+b%2B%E4%B8%AD"
///     PHPQuery.httpBuildQuery(ksorting: ["b": "2", "a": "1"])  // "a=1&b=2"
///     PHPQuery.parseStr("a.b=1&a.b=2").text("a_b")             // "2"
///
/// PHP configuration assumed: the defaults (`arg_separator.input` and `.output` are "&",
/// `max_input_vars` 1000, `max_input_nesting_level` 64, no `filter.default`, no mbstring translation).
public enum PHPQuery {
    // MARK: urlencode

    /// PHP `urlencode`: keeps `A-Z a-z 0-9 - _ .`, writes a space as `+` and every other byte as
    /// `%XX` (upper-case hex). Unlike `rawurlencode` it also escapes `~`.
    public static func urlencode(_ text: String) -> String { urlencode(bytes: text.utf8) }

    /// PHP `urlencode` of raw bytes, which need not be valid UTF-8. The result is always ASCII.
    public static func urlencode<Bytes: Sequence>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 3)
        urlencode(bytes, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends PHP `urlencode` of the bytes to `out`.
    static func urlencode<Bytes: Sequence>(_ bytes: Bytes, into out: inout [UInt8]) where Bytes.Element == UInt8 {
        for byte in bytes {
            if isUnreserved(byte) {
                out.append(byte)
            } else if byte == 0x20 {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(upperHex[Int(byte >> 4)])
                out.append(upperHex[Int(byte & 0x0F)])
            }
        }
    }

    /// PHP `urldecode` (`php_url_decode`): `+` is a space, `%XX` with hex digits in either case is
    /// that byte, and a `%` not followed by two hex digits stays as it is.
    public static func urldecode<Bytes: Collection>(bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        let input = Array(bytes)
        // Most names and values have nothing to decode: they are their own bytes.
        guard input.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return input }
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "+") {
                out.append(0x20)
            } else if byte == UInt8(ascii: "%"), index + 2 < input.count,
                PHPBytes.isHexDigit(input[index + 1]), PHPBytes.isHexDigit(input[index + 2])
            {
                out.append(PHPBytes.hexValue(input[index + 1]) << 4 | PHPBytes.hexValue(input[index + 2]))
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return out
    }

    /// PHP `urldecode` of text; the bytes may not be UTF-8 (`%FF`), so they are returned as bytes.
    public static func urldecode(_ text: String) -> [UInt8] { urldecode(bytes: Array(text.utf8)) }

    // MARK: http_build_query

    /// PHP `http_build_query($array)` with the defaults (RFC 1738 encoding, "&", no numeric prefix).
    ///
    /// Keys and values go through `urlencode`; an integer key prints as its digits; a nested array
    /// becomes `key%5Bsub%5D=value`; an empty nested array contributes nothing.
    public static func httpBuildQuery(_ array: PHPArray) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        encode(array, prefix: [], suffix: [], into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `ksort($fields); http_build_query($fields)` for a flat dictionary: the signed part of a callback.
    ///
    /// Keys are converted as PHP stores them (so "10" is the integer 10) and sorted as `ksort` does;
    /// for the callback's lower-case field names that is plain byte order.
    public static func httpBuildQuery(ksorting fields: [String: String]) -> String {
        httpBuildQuery(ksort(PHPArray(fields)))
    }

    /// Appends the pairs of `array` to `out`; the bytes are ASCII, built without intermediate strings.
    private static func encode(_ array: PHPArray, prefix: [UInt8], suffix: [UInt8], into out: inout [UInt8]) {
        let openBracket = Array("%5B".utf8), closeBracket = Array("%5D".utf8)
        for entry in array {
            func key(into out: inout [UInt8]) {
                out += prefix
                switch entry.key {
                case .int(let number): out += String(number).utf8
                case .string(let raw): urlencode(raw, into: &out)
                }
                out += suffix
            }
            switch entry.value {
            case .array(let nested):
                var nestedPrefix: [UInt8] = []
                key(into: &nestedPrefix)
                encode(nested, prefix: nestedPrefix + openBracket, suffix: closeBracket, into: &out)
            case .string(let raw):
                if !out.isEmpty { out.append(UInt8(ascii: "&")) }
                key(into: &out)
                out.append(UInt8(ascii: "="))
                urlencode(raw, into: &out)
            }
        }
    }

    // MARK: strcasecmp

    /// PHP `strcasecmp`: byte-wise, folding only ASCII letters; 0 means equal. Used to compare signs, so
    /// an upper-case hex sign is accepted exactly as PHP accepts it.
    public static func strcasecmp<A: Collection, B: Collection>(_ lhs: A, _ rhs: B) -> Int
    where A.Element == UInt8, B.Element == UInt8 {
        for (left, right) in zip(lhs, rhs) {
            let a = asciiLower(left), b = asciiLower(right)
            if a != b { return Int(a) - Int(b) }
        }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }

    /// PHP `strcasecmp` of two texts, as their UTF-8 bytes.
    public static func strcasecmp(_ lhs: String, _ rhs: String) -> Int {
        strcasecmp(Array(lhs.utf8), Array(rhs.utf8))
    }

    // MARK: Helpers

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }
}
