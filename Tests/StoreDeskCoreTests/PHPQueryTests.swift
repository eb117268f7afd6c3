import StoreDeskCore
import Testing

@Suite("PHPQuery: urlencode, http_build_query, ksort, parse_str as PHP 8 does them")
struct PHPQueryTests {
    @Test("the PHP vectors load and came from PHP 8")
    func vectorsLoad() throws {
        let vectors = try CallbackVectors.load()
        #expect(vectors.phpVersion.hasPrefix("8."))
        #expect(!vectors.urlencode.isEmpty)
        #expect(!vectors.parseStr.isEmpty)
        #expect(!vectors.sign.isEmpty)
        #expect(!vectors.verify.isEmpty)
        #expect(!vectors.callbacks.isEmpty)
    }

    @Test("urlencode matches PHP byte for byte", arguments: CallbackVectors.shared?.urlencode ?? [])
    func urlencodeMatchesPHP(vector: CallbackVectors.URLEncode) throws {
        #expect(PHPQuery.urlencode(bytes: try Hex.bytes(vector.inputHex)) == vector.output)
    }

    @Test("urlencode keeps only A-Z a-z 0-9 - _ . and writes a space as +")
    func urlencodeRules() {
        #expect(PHPQuery.urlencode("AZaz09-_.") == "AZaz09-_.")
        #expect(PHPQuery.urlencode("a b") == "a+b")
        #expect(PHPQuery.urlencode("~") == "%7E")
        #expect(PHPQuery.urlencode("+") == "%2B")
        #expect(PHPQuery.urlencode("中") == "%E4%B8%AD")
        #expect(PHPQuery.urlencode("é") == "%C3%A9")
    }

    @Test("strcasecmp matches PHP", arguments: CallbackVectors.shared?.strcasecmp ?? [])
    func strcasecmpMatchesPHP(vector: CallbackVectors.StrCaseCmp) throws {
        #expect(PHPQuery.strcasecmp(try Hex.bytes(vector.aHex), try Hex.bytes(vector.bHex)) == vector.result)
    }

    @Test("parse_str, http_build_query and ksort match PHP", arguments: CallbackVectors.shared?.parseStr ?? [])
    func parseStrMatchesPHP(vector: CallbackVectors.ParseStr) throws {
        let parsed = PHPQuery.parseStr(bytes: try Hex.bytes(vector.bodyHex))
        #expect(PHPValue.array(parsed) == vector.result.value)
        #expect(PHPQuery.httpBuildQuery(parsed) == vector.query)
        #expect(PHPQuery.httpBuildQuery(PHPQuery.ksort(parsed)) == vector.ksortedQuery)
    }

    @Test("parse_str: the last of a repeated key wins, in the first one's place")
    func parseStrRepeatedKey() {
        #expect(PHPQuery.parseStr("a=1&a=2").text("a") == "2")
        #expect(PHPQuery.parseStr("a=1&b=2&a=3").keys == [PHPKey("a"), PHPKey("b")])
    }

    @Test("parse_str turns '.' and ' ' in names into '_'")
    func parseStrMangling() {
        #expect(PHPQuery.parseStr("a.b=1").text("a_b") == "1")
        #expect(PHPQuery.parseStr("a b=1").text("a_b") == "1")
        #expect(PHPQuery.parseStr("a+b=1").text("a_b") == "1")
        #expect(PHPQuery.parseStr("a.b=1").text("a.b") == nil)
    }

    @Test("parse_str decodes escapes in either case and keeps invalid ones literally")
    func parseStrEscapes() {
        #expect(PHPQuery.parseStr("%zz=1").text("%zz") == "1")
        #expect(PHPQuery.parseStr("x=%e4%b8%ad").text("x") == "中")
        #expect(PHPQuery.parseStr("x=%E4%B8%AD").text("x") == "中")
        #expect(PHPQuery.parseStr("x=a+b%20c").text("x") == "a b c")
        #expect(PHPQuery.parseStr("x=%2").text("x") == "%2")
        #expect(PHPQuery.parseStr("x=%").text("x") == "%")
    }

    @Test("parse_str: a pair without '=' has an empty value; empty pairs are skipped")
    func parseStrEmpty() {
        #expect(PHPQuery.parseStr("novalue").text("novalue") == "")
        #expect(PHPQuery.parseStr("&&").isEmpty)
        #expect(PHPQuery.parseStr("").isEmpty)
        #expect(PHPQuery.parseStr("=1").isEmpty)
    }

    @Test("parse_str of bytes that are not UTF-8 does not crash and keeps the bytes")
    func parseStrInvalidUTF8() {
        let parsed = PHPQuery.parseStr("x=%ff%fe&%c3=1")
        #expect(parsed["x"]?.bytes == [0xFF, 0xFE])
        #expect(parsed["x"]?.text == "\u{FFFD}\u{FFFD}")
        #expect(parsed[PHPKey.string([0xC3])]?.text == "1")
        #expect(PHPQuery.parseStr(bytes: [0x61, 0x3D, 0xFF, 0x80]).text("a") == "\u{FFFD}\u{FFFD}")
    }

    @Test("parse_str builds nested arrays from brackets, and http_build_query writes them back")
    func parseStrBrackets() {
        let parsed = PHPQuery.parseStr("a[]=1&a[]=2&b[x][y]=3")
        #expect(parsed["a"]?.array?.keys == [.int(0), .int(1)])
        #expect(PHPQuery.httpBuildQuery(parsed) == "a%5B0%5D=1&a%5B1%5D=2&b%5Bx%5D%5By%5D=3")
        #expect(PHPQuery.parseStr("a[b=1").text("a_b") == "1")
    }

    @Test("canonical decimal keys are integers, others stay strings")
    func numericKeys() {
        #expect(PHPKey("10") == .int(10))
        #expect(PHPKey("-3") == .int(-3))
        #expect(PHPKey("0") == .int(0))
        #expect(PHPKey("05") == .string(Array("05".utf8)))
        #expect(PHPKey("-0") == .string(Array("-0".utf8)))
        #expect(PHPKey("9223372036854775807") == .int(Int64.max))
        #expect(PHPKey("9223372036854775808") == .string(Array("9223372036854775808".utf8)))
        #expect(PHPKey("-9223372036854775808") == .int(Int64.min))
    }

    @Test("ksort of the callback's field names is byte order")
    func ksortCallbackFields() {
        let fields = [
            "timestamp": "1", "sign": "x", "app_order_id": "2", "app": "3", "app_id": "4", "client_id": "5",
            "ext": "6", "gold": "7", "order_id": "8", "payment": "9", "product_id": "a", "role_id": "b",
            "sub_payment": "c", "user_id": "d",
        ]
        let scrambled = PHPArray(fields.map { ($0.key, $0.value) }.shuffled())
        let sorted = PHPQuery.ksort(scrambled).keys.map(\.description)
        #expect(sorted == fields.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(sorted.first == "app")
    }

    @Test("ksort compares numeric keys as numbers and keeps equal keys in insertion order")
    func ksortNumeric() {
        let sorted = PHPQuery.ksort(PHPQuery.parseStr("b=1&10=2&9=3&1e1=4&a=5"))
        #expect(sorted.keys.map(\.description) == ["9", "10", "1e1", "a", "b"])
    }

    @Test("http_build_query(ksorting:) sorts a flat dictionary and urlencodes keys and values")
    func flatQuery() {
        #expect(PHPQuery.httpBuildQuery(ksorting: ["b": "x y", "a": "中&=", "c": ""]) == "a=%E4%B8%AD%26%3D&b=x+y&c=")
        #expect(PHPQuery.httpBuildQuery(ksorting: [:]) == "")
    }

    @Test("urldecode is parse_str's decoding")
    func urldecode() {
        #expect(PHPQuery.urldecode("a+b%20%41%4a%4A%zz%") == Array("a b AJJ%zz%".utf8))
    }
}

/// `PHPArray` finds a small array's keys by comparing them and a large one's by hash: crossing between the
/// two, in either direction, changes neither order, lookups, updates in place nor the next free index.
@Test("PHPArray keeps PHP's order and lookups as it grows past and shrinks below its indexed size")
func phpArrayAcrossItsIndexedSize() {
    var array = PHPArray()
    let size = 40  // past the size (32) from which keys are found by hash
    for index in 0..<size { array.update(.string(Array("v\(index)".utf8)), for: PHPKey("k\(index)")) }
    array.update(.string(Array("first".utf8)), for: PHPKey("k0"))
    array.update(.string(Array("late".utf8)), for: PHPKey("k\(size - 1)"))
    #expect(array.count == size)
    #expect(array.text("k0") == "first")
    #expect(array.text("k\(size - 1)") == "late")
    #expect(array.keys.first == PHPKey("k0") && array.keys.last == PHPKey("k\(size - 1)"))
    // Shrink below the indexed size, removing from the front so every later position moves.
    for index in 0..<10 { array.removeValue(forKey: PHPKey("k\(index)")) }
    #expect(array.count == size - 10)
    #expect(array["k3"] == nil)
    #expect(array.text("k10") == "v10" && array.text("k\(size - 1)") == "late")
    #expect(array.keys.first == PHPKey("k10"))
    // Integer keys and `[]` appends after the shrink: the next free index follows the largest one.
    array.update(.string(Array("seven".utf8)), for: PHPKey("7"))
    let appended = array.append(.string(Array("eight".utf8)))
    #expect(appended)
    #expect(array[PHPKey.int(8)]?.text == "eight")
    // Grow again past the indexed size: lookups of old and new keys, and order, hold.
    for index in 100..<140 { array.update(.string(Array("n\(index)".utf8)), for: PHPKey("k\(index)")) }
    #expect(array.text("k10") == "v10" && array.text("k139") == "n139")
    #expect(array.keys.last == PHPKey("k139"))
    #expect(PHPQuery.ksort(array).keys.first == PHPKey.int(7))
    #expect(PHPQuery.parseStr(PHPQuery.httpBuildQuery(array)) == array)
}
