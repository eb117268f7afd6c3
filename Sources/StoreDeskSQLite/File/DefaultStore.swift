import Foundation

/// The store StoreDesk opens when no `--db` or `STOREDESK_DB` names one: built from the embedded demo
/// dataset on first use, under `$XDG_DATA_HOME/storedesk/` (or `~/.local/share/storedesk/`).
public enum DefaultStore {
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = (home as NSString).appendingPathComponent(".local/share")
        }
        return (base as NSString).appendingPathComponent("storedesk/storedesk.sqlite")
    }

    /// Builds the default store from the demo dataset when it does not exist yet. Returns whether it built.
    @discardableResult
    public static func ensure(at path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Bool {
        guard !FileManager.default.fileExists(atPath: path) else { return false }
        let contents = try DemoDatasetLoader.load(from: DemoDatasetLoader.embeddedDirectory(environment: environment))
        try DemoDatasetLoader.build(contents, at: path)
        return true
    }
}
