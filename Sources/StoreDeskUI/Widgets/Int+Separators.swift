extension Int {
    /// `1,000,000`.
    public var formattedWithSeparators: String {
        let digits = String(self.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(ch)
        }
        return (self < 0 ? "-" : "") + out
    }
}
