import Foundation

/// The demo dataset that the embedded default store is built from, shipped inside the binary as a
/// resource bundle. One JSON file a table, in `Data/Demo/`.
public enum DemoDataset {
    /// The folder holding the dataset's JSON files.
    public static var directory: URL? {
        Bundle.module.url(forResource: "Demo", withExtension: nil)
    }
}
