import Foundation

/// The theme files shipped in `Themes/`, embedded in the binary as a resource bundle.
public enum ThemeFiles {
    /// The shipped theme files by name (`dark` for `dark.toml`).
    public static var all: [String: URL] {
        var out: [String: URL] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Bundle.module.bundlePath)) ?? []
        for name in names where name.hasSuffix(".toml") {
            out[String(name.dropLast(5))] = URL(fileURLWithPath: Bundle.module.bundlePath).appendingPathComponent(name)
        }
        return out
    }
}
