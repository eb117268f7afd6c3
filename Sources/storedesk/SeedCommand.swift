import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskOpener
import StoreDeskUI

struct SeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed",
        abstract: "Generate a deterministic synthetic store (up to millions of users).",
        discussion: "The same --users and --seed always give the same data. Refuses to replace an existing file without --force.")

    @Option(help: "How many users to generate.") var users: Int = 10_000
    @Option(help: "The generator's seed.") var seed: UInt64 = 1
    @Option(help: ArgumentHelp("The store file to write (default: the default store path).", valueName: "path")) var db: String?
    @Flag(help: "Replace an existing file.") var force = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard (0...StoreOpener.largestSeed).contains(users) else {
            throw fail("--users must be from 0 to \(StoreOpener.largestSeed) (ten million), got \(users)")
        }
    }

    func run() throws {
        try reporting {
            let path = StoreLocation(db: db).newStorePath
            try StoreOpener.checkDestination(path, replacing: force)
            let demo = try StoreOpener.demoDataset()
            let started = Date()
            let bar = ProgressBar(total: users, enabled: stderrIsTerminal && !output.json)
            let summary = try StoreOpener.seed(
                path: path, users: users, seed: seed, catalogue: demo.catalogue, clock: demo.clock,
                replacing: force, progress: bar.update)
            bar.finish()
            let elapsed = Date().timeIntervalSince(started)
            try output.show(
                SeedReport(path: path, seed: seed, elapsedSeconds: elapsed, counts: summary))
        }
    }
}

/// A one-line progress bar on stderr, drawn only on a terminal.
final class ProgressBar {
    let total: Int
    let enabled: Bool
    let started = Date()

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    func update(_ done: Int) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = min(width, done * width / total)
        let rate = Double(done) / max(Date().timeIntervalSince(started), 0.001)
        let line = "\r[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "] "
            + "\(done.formattedWithSeparators)/\(total.formattedWithSeparators) users  " + String(format: "%.0f/s ", rate)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled, total > 0 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
