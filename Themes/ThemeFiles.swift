import Foundation

/// The theme files shipped in `Themes/`, beside the binary as a resource bundle.
public enum ThemeFiles {
    /// The shipped theme files by name (`dark` for `dark.toml`): from the resource bundle beside the
    /// executable, else from the source tree the binary was built from, else none (the console then
    /// draws with its built-in dark theme). Not `Bundle.module`, which stops the process with a fatal
    /// error when the binary has been copied away from both.
    public static var all: [String: URL] {
        let beside = Bundle.main.bundleURL.appendingPathComponent("StoreDesk_StoreDeskThemes.resources")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for folder in [beside, source] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            let files = names.filter { $0.hasSuffix(".toml") }
            guard !files.isEmpty else { continue }
            return Dictionary(uniqueKeysWithValues: files.map { (String($0.dropLast(5)), folder.appendingPathComponent($0)) })
        }
        return [:]
    }
}
