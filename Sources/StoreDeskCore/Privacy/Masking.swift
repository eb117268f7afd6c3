/// How personal data and secrets look wherever StoreDesk shows or logs them.
///
/// Masking is the default everywhere; only a support role may reveal, and each reveal is audited.
///
///     Masking.phone("13800000000")   // "138****0000"
///     Masking.secret("a1b2c3d4e5f6") // "a1b2****f6"
public enum Masking {
    /// `138****0000`: the first three and last four digits of a mainland mobile number.
    public static func phone(_ raw: String) -> String {
        let chars = Array(raw)
        guard chars.count >= 7 else { return String(repeating: "*", count: chars.count) }
        return String(chars.prefix(3)) + String(repeating: "*", count: chars.count - 7) + String(chars.suffix(4))
    }

    /// `110***********1234`: an ID-card number keeps its region prefix and last four characters.
    public static func idCard(_ raw: String) -> String {
        let chars = Array(raw)
        guard chars.count > 7 else { return String(repeating: "*", count: chars.count) }
        return String(chars.prefix(3)) + String(repeating: "*", count: chars.count - 7) + String(chars.suffix(4))
    }

    /// `a1b2****f6`: an app key or any other secret keeps a little of each end to tell keys apart.
    public static func secret(_ raw: String) -> String {
        // Printable ASCII (every AppKey StoreDesk makes) is one character a byte: no grapheme breaking,
        // which `serve` paid on every callback it verified.
        let bytes = raw.utf8
        if bytes.count > 8, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            return String(decoding: bytes.prefix(4), as: UTF8.self) + "****" + String(decoding: bytes.suffix(2), as: UTF8.self)
        }
        let chars = Array(raw)
        guard chars.count > 8 else { return String(repeating: "*", count: max(4, chars.count)) }
        return String(chars.prefix(4)) + "****" + String(chars.suffix(2))
    }

    /// Free text with every mainland mobile number in it masked: a run of exactly 11 digits that starts
    /// with 1 (`u_13800000000` → `u_138****0000`). For log lines whose fields may carry a phone number.
    ///
    /// Walks the UTF-8 bytes: an ASCII digit is one byte there and never part of another character, and a
    /// text without such a number comes back as it was, with nothing built (`serve` masks two fields of
    /// every request's log line).
    public static func phoneNumbers(in text: String) -> String {
        let bytes = Array(text.utf8)
        func isDigit(_ i: Int) -> Bool { i >= 0 && i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        var out: [UInt8] = []
        var masked = false
        var index = 0
        while index < bytes.count {
            if isDigit(index) && !isDigit(index - 1) {
                var end = index
                while isDigit(end) { end += 1 }
                if end - index == 11 && bytes[index] == UInt8(ascii: "1") {
                    if !masked {
                        out.reserveCapacity(bytes.count)
                        out += bytes[0..<index]
                        masked = true
                    }
                    out += bytes[index..<(index + 3)]
                    out += Array("****".utf8)
                    out += bytes[(end - 4)..<end]
                } else if masked {
                    out += bytes[index..<end]
                }
                index = end
            } else {
                if masked { out.append(bytes[index]) }
                index += 1
            }
        }
        return masked ? String(decoding: out, as: UTF8.self) : text
    }

    /// Whether a stored ID-card number is already masked (the store never keeps one in the clear).
    public static func isMaskedIDCard(_ value: String) -> Bool { value.isEmpty || value.contains("*") }
}
