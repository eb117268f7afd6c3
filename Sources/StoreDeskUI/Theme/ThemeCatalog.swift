import Foundation
import StoreDeskThemes

/// Where themes come from: the files shipped in `Themes/` (embedded), then the user's own in
/// `$XDG_CONFIG_HOME/storedesk/themes/` (or `~/.config/storedesk/themes/`), which win on a name clash.
public struct ThemeCatalog: Sendable {
    let environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Every theme file by name, looked up when asked (a snapshot with the default theme never asks).
    public var files: [String: URL] {
        var files = ThemeFiles.all
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(".config")
        let userDirectory = URL(fileURLWithPath: config).appendingPathComponent("storedesk/themes")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: userDirectory.path) {
            for name in names where name.hasSuffix(".toml") {
                files[String(name.dropLast(5))] = userDirectory.appendingPathComponent(name)
            }
        }
        return files
    }

    public var names: [String] { (files.keys + ["mono"]).sorted() }

    /// Loads a theme by name (`mono` is built in) or by file path.
    public func load(_ nameOrPath: String) throws -> (Theme, warnings: [String]) {
        if nameOrPath == "mono" { return (Theme.mono, []) }
        if nameOrPath == "default" { return (Theme.builtInDefault, []) }
        let files = self.files
        // The shipped dark.toml is the built-in default (a test keeps them equal): no need to parse it.
        if nameOrPath == "dark" && files["dark"] == ThemeFiles.all["dark"] { return (Theme.builtInDefault, []) }
        let url: URL
        if let known = files[nameOrPath] {
            url = known
        } else if nameOrPath.contains("/") || nameOrPath.hasSuffix(".toml") {
            url = URL(fileURLWithPath: nameOrPath)
        } else {
            throw ThemeError(file: nameOrPath, line: nil, message: "no such theme (have: \(names.joined(separator: ", ")))")
        }
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8) else {
            throw ThemeError(file: url.path, line: nil, message: "cannot read the file")
        }
        return try Theme.parse(text, file: url.path)
    }
}
