import Foundation

/// The demo dataset that the embedded default store is built from, shipped beside the binary as a
/// resource bundle. One JSON file a table, in `Data/Demo/`.
public enum DemoDataset {
    /// The folder holding the dataset's JSON files: in the resource bundle beside the executable (where
    /// the build puts it), else in the source tree the binary was built from. nil when neither is there
    /// (a binary copied away from both), so the caller says so in one line: SwiftPM's `Bundle.module`
    /// would stop the process with a fatal error instead.
    public static var directory: URL? {
        let beside = Bundle.main.bundleURL.appendingPathComponent("StoreDesk_StoreDeskDemoData.resources/Demo")
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Demo")
        return [beside, source].first { FileManager.default.fileExists(atPath: $0.path) }
    }
}
