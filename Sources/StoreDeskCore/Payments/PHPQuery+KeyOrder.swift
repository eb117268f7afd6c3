extension PHPQuery {
    /// PHP 8 `ksort($array)` with the default flags (`SORT_REGULAR`), top level only, as PHP does.
    ///
    /// What is reproduced, because the signature hashes keys in this order:
    /// - two integer keys compare numerically;
    /// - two string keys compare with PHP 8's "smart" string comparison: numerically when both are
    ///   numeric strings (" 7", "1e1", "1.5"), byte by byte (`memcmp`, then length) otherwise;
    /// - an integer key and a string key compare numerically when the string is numeric, otherwise
    ///   the integer's digits are compared with the string byte by byte (PHP 8 semantics);
    /// - keys that compare equal (10 and "1e1") keep their insertion order: PHP 8's sort is stable;
    /// - the sorting algorithm itself is PHP's (`zend_sort`: insertion sort up to 16 elements, hybrid
    ///   quicksort above), so even key sets whose comparison is not transitive (1, "\t1", "0x1A")
    ///   come out in PHP's order.
    ///
    /// The callback's own field names are lower-case ASCII words, for which all of this is plain byte
    /// order ("app" < "app_id" < "client_id" …).
    public static func ksort(_ array: PHPArray) -> PHPArray {
        guard array.count > 1 else { return array }
        // The common case (every key a non-numeric string, like the callback's field names): byte
        // order is then a strict total order over distinct keys, so any sort gives PHP's result.
        if array.entries.allSatisfy({ if case .string(let key) = $0.key { PHPNumericString(key) == nil } else { false } }) {
            var sorted = array
            sorted.reorder(array.entries.sorted { first, second in
                guard case .string(let a) = first.key, case .string(let b) = second.key else { return false }
                return byteCompare(a, b) < 0
            })
            return sorted
        }
        var buckets = array.entries.enumerated().map { (order: $0.offset, entry: $0.element) }
        ZendSort.sort(&buckets) { first, second in
            let result = compareKeys(first.entry.key, second.entry.key)
            if result != 0 { return result }
            // RETURN_STABLE_SORT: equal keys fall back to their original position.
            return first.order < second.order ? -1 : (first.order > second.order ? 1 : 0)
        }
        var sorted = array
        sorted.reorder(buckets.map(\.entry))
        return sorted
    }

    /// `php_array_key_compare_unstable_i`: the key comparison `ksort` uses, as -1, 0 or 1 (or any sign).
    public static func compareKeys(_ lhs: PHPKey, _ rhs: PHPKey) -> Int {
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            return a > b ? 1 : -1
        case (.string(let a), .string(let b)):
            return smartCompare(a, b)
        case (.int(let a), .string(let b)):
            return compareInteger(a, toString: b)
        case (.string(let a), .int(let b)):
            return -compareInteger(b, toString: a)
        }
    }

    /// `zendi_smart_strcmp`: numeric strings compare as numbers, anything else as bytes.
    static func smartCompare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        guard let a = PHPNumericString(lhs), let b = PHPNumericString(rhs) else {
            return byteCompare(lhs, rhs)
        }
        switch (a.value, b.value) {
        case (.integer(let x), .integer(let y)):
            return x > y ? 1 : (x < y ? -1 : 0)
        case (.integer(let x), .double(let y)):
            if b.overflow != 0 { return -b.overflow }
            return normalize(Double(x) - y)
        case (.double(let x), .integer(let y)):
            if a.overflow != 0 { return a.overflow }
            return normalize(x - Double(y))
        case (.double(let x), .double(let y)):
            // Integers that overflowed to the same side, or two equal infinities: a numeric comparison
            // would lose the difference, so PHP compares the text instead.
            if a.overflow != 0 && a.overflow == b.overflow && x - y == 0 { return byteCompare(lhs, rhs) }
            if x == y && !x.isFinite { return byteCompare(lhs, rhs) }
            return normalize(x - y)
        }
    }

    /// `zend_compare_long_to_string` (PHP 8): numeric strings compare as numbers, others as text.
    static func compareInteger(_ number: Int64, toString text: [UInt8]) -> Int {
        guard let numeric = PHPNumericString(text) else {
            return byteCompare(Array(String(number).utf8), text)
        }
        switch numeric.value {
        case .integer(let other): return number > other ? 1 : (number < other ? -1 : 0)
        case .double(let other): return normalize(Double(number) - other)
        }
    }

    /// `zend_binary_strcmp`, normalised: `memcmp` of the common prefix, then the shorter string first.
    static func byteCompare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        for (a, b) in zip(lhs, rhs) where a != b { return a < b ? -1 : 1 }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }

    private static func normalize(_ difference: Double) -> Int {
        difference > 0 ? 1 : (difference < 0 ? -1 : 0)
    }
}

/// A string PHP 8 considers numeric (`is_numeric_string`): optional surrounding whitespace, a sign,
/// decimal digits with an optional fraction and exponent. No hex, no "inf", no "nan".
struct PHPNumericString {
    enum Value {
        case integer(Int64)
        case double(Double)
    }

    var value: Value
    /// +1 or -1 when the text is an integer beyond Int64 (PHP's `oflow`), else 0.
    var overflow: Int

    init?(_ bytes: [UInt8]) {
        var index = 0
        while index < bytes.count, PHPBytes.isSpace(bytes[index]) { index += 1 }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var integerDigits: [UInt8] = []
        while index < bytes.count, PHPBytes.isDigit(bytes[index]) {
            integerDigits.append(bytes[index])
            index += 1
        }
        var fractionDigits: [UInt8] = []
        var hasPoint = false
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            // "1." and ".5" are numbers; a lone "." is not.
            let next = index + 1
            if !integerDigits.isEmpty || (next < bytes.count && PHPBytes.isDigit(bytes[next])) {
                hasPoint = true
                index = next
                while index < bytes.count, PHPBytes.isDigit(bytes[index]) {
                    fractionDigits.append(bytes[index])
                    index += 1
                }
            }
        }
        guard !integerDigits.isEmpty || !fractionDigits.isEmpty else { return nil }
        var exponent: [UInt8] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            var probe = index + 1
            var sign: [UInt8] = []
            if probe < bytes.count, bytes[probe] == UInt8(ascii: "-") || bytes[probe] == UInt8(ascii: "+") {
                sign = [bytes[probe]]
                probe += 1
            }
            if probe < bytes.count, PHPBytes.isDigit(bytes[probe]) {
                exponent = sign
                while probe < bytes.count, PHPBytes.isDigit(bytes[probe]) {
                    exponent.append(bytes[probe])
                    probe += 1
                }
                index = probe
            }
        }
        while index < bytes.count, PHPBytes.isSpace(bytes[index]) { index += 1 }
        guard index == bytes.count else { return nil }

        // PHP flags an overflow for an integer beyond Int64, and for 20 or more integer digits (leading
        // zeros aside) even when a fraction or exponent follows.
        let significant = integerDigits.drop { $0 == UInt8(ascii: "0") }.count
        self.overflow = significant >= 20 ? (negative ? -1 : 1) : 0
        if !hasPoint && exponent.isEmpty {
            if let integer = PHPBytes.int64(decimalDigits: integerDigits, negative: negative) {
                self.value = .integer(integer)
                self.overflow = 0
                return
            }
            self.overflow = negative ? -1 : 1
        }
        var literal = negative ? "-" : ""
        literal += integerDigits.isEmpty ? "0" : String(decoding: integerDigits, as: UTF8.self)
        literal += "." + (fractionDigits.isEmpty ? "0" : String(decoding: fractionDigits, as: UTF8.self))
        if !exponent.isEmpty { literal += "e" + String(decoding: exponent, as: UTF8.self) }
        // Swift's parser, like zend_strtod, rounds correctly and gives ±infinity past Double's range.
        self.value = .double(Double(literal) ?? (negative ? -Double.infinity : Double.infinity))
    }
}

/// PHP's `zend_sort` (Zend/zend_sort.c), ported step for step on array indices.
///
/// With a consistent comparison any stable sort would do; it is ported so that odd key sets whose
/// PHP comparison is not transitive still come out exactly in PHP's order.
enum ZendSort {
    static func sort<Element>(_ items: inout [Element], by compare: (Element, Element) -> Int) {
        hybridSort(&items, base: 0, count: items.count, compare)
    }

    private static func hybridSort<Element>(
        _ a: inout [Element], base startBase: Int, count startCount: Int, _ cmp: (Element, Element) -> Int
    ) {
        var base = startBase
        var count = startCount
        while true {
            if count <= 16 {
                insertSort(&a, base: base, count: count, cmp)
                return
            }
            let start = base
            let end = start + count
            let offset = count >> 1
            var pivot = start + offset
            if count >> 10 != 0 {
                let delta = offset >> 1
                sort5(&a, start, start + delta, pivot, pivot + delta, end - 1, cmp)
            } else {
                sort3(&a, start, pivot, end - 1, cmp)
            }
            a.swapAt(start + 1, pivot)
            pivot = start + 1
            var i = pivot + 1
            var j = end - 1
            partition: while true {
                while cmp(a[pivot], a[i]) > 0 {
                    i += 1
                    if i == j { break partition }
                }
                j -= 1
                if j == i { break partition }
                while cmp(a[j], a[pivot]) > 0 {
                    j -= 1
                    if j == i { break partition }
                }
                a.swapAt(i, j)
                i += 1
                if i == j { break partition }
            }
            a.swapAt(pivot, i - 1)
            if (i - 1) - start < end - i {
                hybridSort(&a, base: start, count: (i - start) - 1, cmp)
                base = i
                count = end - i
            } else {
                hybridSort(&a, base: i, count: end - i, cmp)
                count = (i - start) - 1
            }
        }
    }

    private static func insertSort<Element>(
        _ a: inout [Element], base start: Int, count: Int, _ cmp: (Element, Element) -> Int
    ) {
        switch count {
        case 0, 1:
            return
        case 2:
            sort2(&a, start, start + 1, cmp)
        case 3:
            sort3(&a, start, start + 1, start + 2, cmp)
        case 4:
            sort4(&a, start, start + 1, start + 2, start + 3, cmp)
        case 5:
            sort5(&a, start, start + 1, start + 2, start + 3, start + 4, cmp)
        default:
            let end = start + count
            let sentry = start + 6
            var i = start + 1
            while i < sentry {
                var j = i - 1
                if cmp(a[j], a[i]) > 0 {
                    while j != start {
                        j -= 1
                        if !(cmp(a[j], a[i]) > 0) {
                            j += 1
                            break
                        }
                    }
                    shift(&a, from: i, to: j)
                }
                i += 1
            }
            i = sentry
            while i < end {
                var j = i - 1
                if cmp(a[j], a[i]) > 0 {
                    while true {
                        j -= 2
                        if !(cmp(a[j], a[i]) > 0) {
                            j += 1
                            if !(cmp(a[j], a[i]) > 0) { j += 1 }
                            break
                        }
                        if j == start { break }
                        if j == start + 1 {
                            j -= 1
                            if cmp(a[i], a[j]) > 0 { j += 1 }
                            break
                        }
                    }
                    shift(&a, from: i, to: j)
                }
                i += 1
            }
        }
    }

    /// Moves the element at `from` down to `to` by adjacent swaps, as zend_insert_sort does.
    private static func shift<Element>(_ a: inout [Element], from: Int, to: Int) {
        var k = from
        while k > to {
            a.swapAt(k, k - 1)
            k -= 1
        }
    }

    private static func sort2<Element>(_ a: inout [Element], _ x: Int, _ y: Int, _ cmp: (Element, Element) -> Int) {
        if cmp(a[x], a[y]) > 0 { a.swapAt(x, y) }
    }

    private static func sort3<Element>(
        _ a: inout [Element], _ x: Int, _ y: Int, _ z: Int, _ cmp: (Element, Element) -> Int
    ) {
        if !(cmp(a[x], a[y]) > 0) {
            if !(cmp(a[y], a[z]) > 0) { return }
            a.swapAt(y, z)
            if cmp(a[x], a[y]) > 0 { a.swapAt(x, y) }
            return
        }
        if !(cmp(a[z], a[y]) > 0) {
            a.swapAt(x, z)
            return
        }
        a.swapAt(x, y)
        if cmp(a[y], a[z]) > 0 { a.swapAt(y, z) }
    }

    private static func sort4<Element>(
        _ a: inout [Element], _ x: Int, _ y: Int, _ z: Int, _ w: Int, _ cmp: (Element, Element) -> Int
    ) {
        sort3(&a, x, y, z, cmp)
        if cmp(a[z], a[w]) > 0 {
            a.swapAt(z, w)
            if cmp(a[y], a[z]) > 0 {
                a.swapAt(y, z)
                if cmp(a[x], a[y]) > 0 { a.swapAt(x, y) }
            }
        }
    }

    private static func sort5<Element>(
        _ a: inout [Element], _ x: Int, _ y: Int, _ z: Int, _ w: Int, _ v: Int, _ cmp: (Element, Element) -> Int
    ) {
        sort4(&a, x, y, z, w, cmp)
        if cmp(a[w], a[v]) > 0 {
            a.swapAt(w, v)
            if cmp(a[z], a[w]) > 0 {
                a.swapAt(z, w)
                if cmp(a[y], a[z]) > 0 {
                    a.swapAt(y, z)
                    if cmp(a[x], a[y]) > 0 { a.swapAt(x, y) }
                }
            }
        }
    }
}
