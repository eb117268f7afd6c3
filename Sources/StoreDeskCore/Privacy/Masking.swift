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
        let chars = Array(raw)
        guard chars.count > 8 else { return String(repeating: "*", count: max(4, chars.count)) }
        return String(chars.prefix(4)) + "****" + String(chars.suffix(2))
    }

    /// Free text with every mainland mobile number in it masked: a run of exactly 11 digits that starts
    /// with 1 (`u_13800000000` → `u_138****0000`). For log lines whose fields may carry a phone number.
    public static func phoneNumbers(in text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        func isDigit(_ i: Int) -> Bool { i >= 0 && i < scalars.count && scalars[i].properties.numericType == .decimal && scalars[i].isASCII }
        while index < scalars.count {
            if isDigit(index) && !isDigit(index - 1) {
                var end = index
                while isDigit(end) { end += 1 }
                let run = String(String.UnicodeScalarView(scalars[index..<end]))
                out.append(contentsOf: (end - index == 11 && run.hasPrefix("1") ? phone(run) : run).unicodeScalars)
                index = end
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    /// Whether a stored ID-card number is already masked (the store never keeps one in the clear).
    public static func isMaskedIDCard(_ value: String) -> Bool { value.isEmpty || value.contains("*") }
}
