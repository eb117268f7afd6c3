import ArgumentParser
import StoreDeskStore

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store: SQLite integrity and the domain's invariants. Exit 1 if anything is wrong.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print the result as JSON.") var json = false

    func run() throws {
        let violations = try reporting { try store.open(.readOnly).check() }
        if json {
            struct Output: Encodable {
                var clean: Bool
                var violations: [StoreCheck.Violation]
            }
            try printJSON(Output(clean: violations.isEmpty, violations: violations))
        } else if violations.isEmpty {
            print("ok: \(store.location.path) is clean")
        } else {
            for violation in violations { print("\(violation.kind): \(violation.message)") }
            print("\(violations.count) violation\(violations.count == 1 ? "" : "s") in \(store.location.path)")
        }
        if !violations.isEmpty { throw ExitCode(1) }
    }
}
