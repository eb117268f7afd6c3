extension PHPQuery {
    /// PHP's default `max_input_vars`: `parse_str` stops after this many pairs (with a warning).
    public static let maxInputVars = 1000
    /// PHP's default `max_input_nesting_level`: a deeper `a[b][c]…` name drops the whole variable.
    public static let maxInputNestingLevel = 64

    /// PHP `parse_str($body, $result)` for a form-encoded body, byte for byte.
    ///
    /// What PHP does, and so what this does:
    /// - the body ends at its first NUL byte (PHP walks it as a C string);
    /// - pairs are split on "&"; empty pairs ("&&") are skipped; at most 1000 pairs are read;
    /// - each pair splits at its first "="; without one the value is empty ("novalue" → "");
    /// - names and values are `urldecode`d: "+" and %20 are spaces, %XX takes either case, an invalid
    ///   escape ("%zz", "%2") stays literally; a decoded name ends at its first %00;
    /// - leading spaces of a name are dropped; "." and " " become "_" ("a.b" → "a_b"), up to the
    ///   first "[";
    /// - "a[x]=1" and "a[]=1" build nested arrays (a name that opens "[" and never closes it turns the
    ///   "[" into "_" instead: "a[b=1" → "a_b"); anything after a closing "]" that is not "[" is
    ///   ignored ("a[b]c" → a[b]);
    /// - an empty name ("=1", "[a]=1") is skipped; a repeated name keeps its first position and the
    ///   last value ("a=1&a=2" → a=2);
    /// - numeric names become integer keys ("10"), and names that mangling turned into a `__Host-` or
    ///   `__Secure-` prefix are dropped (PHP's cookie-prefix protection applies to parse_str too).
    ///
    /// Bytes that are not UTF-8 stay bytes (`PHPValue.string`), so nothing here can fail.
    public static func parseStr<Bytes: Sequence>(bytes body: Bytes) -> PHPArray where Bytes.Element == UInt8 {
        var input = Array(body)
        if let nul = input.firstIndex(of: 0) { input.removeSubrange(nul...) }
        var result = PHPArray()
        var pairs = 0
        for token in input.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            pairs += 1
            if pairs > maxInputVars { break }
            let rawName: ArraySlice<UInt8>
            let value: [UInt8]
            if let equals = token.firstIndex(of: UInt8(ascii: "=")) {
                rawName = token[token.startIndex..<equals]
                value = urldecode(bytes: token[(equals + 1)...])
            } else {
                rawName = token
                value = []
            }
            var name = urldecode(bytes: rawName)
            if let nul = name.firstIndex(of: 0) { name.removeSubrange(nul...) }
            register(name: name, value: value, into: &result)
        }
        return result
    }

    /// PHP `parse_str` of text (its UTF-8 bytes).
    public static func parseStr(_ body: String) -> PHPArray { parseStr(bytes: Array(body.utf8)) }

    // MARK: php_register_variable_ex

    /// What happens once the name has been read: store at the end of the path, or nothing.
    private enum Terminal {
        /// Store the value under this key (`nil`: append with the next free index).
        case store([UInt8]?)
        case drop
    }

    /// Reproduces `php_register_variable_ex` on a copy of the name, including its in-place C-string
    /// edits (a "[" overwritten by NUL and later by "_"), because those edits decide the keys.
    private static func register(name: [UInt8], value: [UInt8], into top: inout PHPArray) {
        let space = UInt8(ascii: " "), dot = UInt8(ascii: "."), underscore = UInt8(ascii: "_")
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]")

        let original = Array(name.drop { $0 == space })
        // A plain name (no "[", as every field of a platform callback): mangled, checked and stored,
        // with none of the bookkeeping nested names need; the same result as the walk below.
        if !original.contains(open) {
            guard !original.isEmpty else { return }
            var mangled = original
            var changed = false
            for index in mangled.indices where mangled[index] == space || mangled[index] == dot {
                mangled[index] = underscore
                changed = true
            }
            if changed && isForbidden(mangled, original: original) { return }
            top.update(.string(value), for: PHPKey(bytes: mangled))
            return
        }
        var buffer = original
        var isArray = false
        var cursor = 0
        while cursor < buffer.count {
            if buffer[cursor] == space || buffer[cursor] == dot {
                buffer[cursor] = underscore
            } else if buffer[cursor] == open {
                isArray = true
                buffer[cursor] = 0
                break
            }
            cursor += 1
        }
        let nameLength = cursor
        guard nameLength > 0 else { return }

        // `index` is the pending key as a position in the buffer, read as a C string; nil means "[]".
        var indexStart: Int? = 0
        var indexLength = nameLength
        var containers: [[UInt8]?] = []
        var terminal: Terminal

        func key(_ start: Int?, _ length: Int) -> [UInt8]? {
            start.map { Array(buffer[$0..<($0 + length)]) }
        }

        if isArray {
            var ip = cursor
            var level = 0
            terminal = .drop
            scan: while true {
                level += 1
                if level > maxInputNestingLevel {
                    top.removeValue(forKey: PHPKey(bytes: buffer[0..<nameLength]))
                    return
                }
                ip += 1
                var subscriptStart: Int? = ip
                var subscriptLength = 0
                if ip < buffer.count, PHPBytes.isSpace(buffer[ip]) { ip += 1 }
                if ip < buffer.count, buffer[ip] == close {
                    subscriptStart = nil
                } else if let closing = buffer[min(ip, buffer.count)...].firstIndex(of: close) {
                    buffer[closing] = 0
                    subscriptLength = closing - (subscriptStart ?? closing)
                    ip = closing
                } else {
                    // Not an index after all: the "[" becomes "_" and the rest is mangled like a name.
                    let start = subscriptStart ?? buffer.count
                    buffer[start - 1] = underscore
                    for position in start..<buffer.count
                    where buffer[position] == space || buffer[position] == dot || buffer[position] == open {
                        buffer[position] = underscore
                    }
                    if let pending = indexStart { indexLength = cStringLength(buffer, from: pending) }
                    terminal = .store(key(indexStart, indexLength))
                    break scan
                }
                let pendingKey = key(indexStart, indexLength)
                if let pendingKey, isForbidden(pendingKey, original: original) { break scan }
                containers.append(pendingKey)
                indexStart = subscriptStart
                indexLength = subscriptLength
                ip += 1
                if ip < buffer.count, buffer[ip] == open {
                    buffer[ip] = 0
                    continue scan
                }
                terminal = .store(key(indexStart, indexLength))
                break scan
            }
        } else {
            terminal = .store(key(indexStart, indexLength))
        }
        if case .store(let final?) = terminal, isForbidden(final, original: original) { terminal = .drop }
        apply(containers[...], terminal: terminal, value: value, to: &top)
    }

    /// Walks (creating as PHP does) the nested arrays, then stores the value.
    private static func apply(
        _ path: ArraySlice<[UInt8]?>, terminal: Terminal, value: [UInt8], to array: inout PHPArray
    ) {
        guard let step = path.first else {
            switch terminal {
            case .store(let key?): array.update(.string(value), for: PHPKey(bytes: key))
            case .store(nil): array.append(.string(value))
            case .drop: break
            }
            return
        }
        // A missing key gets a new array at the end; a non-array value is replaced in place.
        guard let key = step.map({ PHPKey(bytes: $0) }) ?? array.nextAppendKey else { return }
        var child = array[key]?.array ?? PHPArray()
        apply(path.dropFirst(), terminal: terminal, value: value, to: &child)
        array.update(.array(child), for: key)
    }

    private static let forbiddenPrefixes = [Array("__Host-".utf8), Array("__Secure-".utf8)]

    /// `php_is_forbidden_variable_name`: mangling must not manufacture a `__Host-`/`__Secure-` name.
    private static func isForbidden(_ mangled: [UInt8], original: [UInt8]) -> Bool {
        // Every field of every callback comes here: the prefixes are made once, not twice per field.
        for prefix in forbiddenPrefixes where mangled.starts(with: prefix) && !original.starts(with: prefix) {
            return true
        }
        return false
    }

    private static func cStringLength(_ buffer: [UInt8], from start: Int) -> Int {
        var end = start
        while end < buffer.count, buffer[end] != 0 { end += 1 }
        return end - start
    }
}
