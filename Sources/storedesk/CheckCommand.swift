import ArgumentParser
import StoreDeskStoreAPI

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store: SQLite integrity and the domain's invariants. Exit 1 if anything is wrong.")

    @OptionGroup var store: StoreOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let violations = try reporting { try store.open(.readOnly).check() }
        try output.show(CheckReport(path: store.location.path, violations: violations))
        if !violations.isEmpty { throw ExitCode(1) }
    }
}
