import ArgumentParser
import StoreDeskCore
import StoreDeskUI
import StoreDeskStoreAPI

// The values options take, as ArgumentParser values: a bad one is refused by the parser before
// `run()`, in one line that names the option and lists what it takes, and `--help` lists them too.

extension StaffRole: ExpressibleByArgument {
    /// `--role Developer` works as `--role developer` did before.
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension OneTapLogin.Network: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// Six choices: ArgumentParser lists them one a line, which `exitReporting` turns back into one line.
extension OneTapLogin.Carrier: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension Size: ExpressibleByArgument {
    /// `WIDTHxHEIGHT`, e.g. `120x40`.
    public init?(argument: String) { self.init(argument) }
    public var defaultValueDescription: String { "\(width)x\(height)" }
}

/// `restore list --status`: one status, or all of them.
enum RestoreStatusChoice: String, CaseIterable, ExpressibleByArgument {
    case open, confirmed, declined, all

    /// The store's filter: nil for all.
    var status: RestoreStatus? { RestoreStatus(rawValue: rawValue) }
}

extension TransactionState: ExpressibleByArgument {}

/// `simulate --environment`: the App Store environment a run's purchases are made in.
enum EnvironmentChoice: String, CaseIterable, ExpressibleByArgument {
    case sandbox, production

    var environment: StoreEnvironment { self == .sandbox ? .sandbox : .production }
}

/// `restore list --environment`: the prompts of one environment's purchases, or all of them.
enum EnvironmentFilterChoice: String, CaseIterable, ExpressibleByArgument {
    case all, sandbox, production

    /// The store's filter: nil for all.
    var environment: StoreEnvironment? { EnvironmentChoice(rawValue: rawValue)?.environment }
}

/// `user history --kind`: seven choices, one line when refused (`exitReporting`).
extension HistoryKind: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension LoginPlatform.System: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

/// `events simulate --rate`: the StoreKit testing time rates a demo runs at, by the length of a month
/// (`30s`, `5m`) or `real`. Anything else is refused by the parser in one line that lists these three.
enum SimulationRate: String, CaseIterable, ExpressibleByArgument {
    case thirtySeconds = "30s"
    case fiveMinutes = "5m"
    case real

    var timeRate: TimeRate {
        switch self {
        case .thirtySeconds: .monthEvery30Seconds
        case .fiveMinutes: .monthEvery5Minutes
        case .real: .realTime
        }
    }
}

extension ExportFormat: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}

extension UserOrder: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
