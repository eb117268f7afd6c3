import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension LoginCommand {
    /// `storedesk login onetap ...`: the carrier's one-click phone login, one step per command, against
    /// the simulator's state kept in the store, so a script can test expiry and the rate limit.
    struct OneTap: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "onetap",
            abstract: "The carrier one-click phone login simulator, step by step (its state and clock are kept in the store).",
            subcommands: [Register.self, Settings.self, Prefetch.self, Authorize.self, Exchange.self, Advance.self, Delete.self, Codes.self])

        /// Runs one step as `--role developer`, prints its outcome, and exits 1 unless the carrier said 103000.
        static func step(
            _ store: StoreOptions, _ staff: StaffOptions, _ output: OutputOptions, _ command: String,
            _ body: @escaping (inout OneTapLogin, Instant) throws -> OneTapOutcome
        ) throws {
            let outcome = try reporting {
                let editor = try staff.editor("login onetap \(command)")
                return try store.open(.readWrite).oneTap(by: editor, wall: Instant(Date()), body)
            }
            try output.show(OneTapOutcomeJSON(outcome))
            if !outcome.result.isSuccess { throw ExitCode(1) }
        }

        struct Register: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "register", abstract: "Initialise the SDK with the carrier's appId and appKey (the key is shown masked).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(name: .customLong("app-id"), help: "The carrier appId (12 digits).") var appId: String
            @Option(
                name: .customLong("app-key-file"),
                help: ArgumentHelp("A file holding the carrier appKey (32 hex digits) on one line, or - to read it from standard input.", valueName: "file"))
            var appKeyFile: String?
            /// Present only to refuse it without repeating the key: a secret is never taken from the command line.
            @Option(name: .customLong("app-key"), help: .hidden) var appKeyOnCommandLine: String?
            @OptionGroup var output: OutputOptions

            func validate() throws {
                if appKeyOnCommandLine != nil {
                    throw fail(
                        "--app-key is not taken here: other users can read a process's arguments; put the appKey in a file and use --app-key-file FILE (or - for standard input)")
                }
                guard appKeyFile != nil else { throw fail("register needs the appKey: --app-key-file FILE (or - for standard input)") }
                guard !appId.trimmingCharacters(in: .whitespaces).isEmpty else { throw fail("--app-id must not be empty") }
            }

            func run() throws {
                let id = appId.trimmingCharacters(in: .whitespaces)
                let key = try reporting { try AppKeyFile.read(appKeyFile ?? "-") }
                try OneTap.step(store, staff, output, "register") { login, now in
                    login.register(appId: id, appKey: key)
                    return OneTapOutcome(
                        step: "register", result: .success, detail: "appId \(id), appKey \(Masking.secret(key))", at: now)
                }
            }
        }

        struct Settings: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "settings",
                abstract: "The phone's network and SIM and the SDK's timeout; with no option, prints them.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(help: "The SDK's timeout in ms (8000 when unset or not above 0).") var timeout: Int?
            @Option(help: "The phone's network.") var network: OneTapLogin.Network?
            @Option(help: "mobile, unicom, telecom, dual (two SIMs), none (no SIM) or other.") var carrier: OneTapLogin.Carrier?
            @Option(help: "The SIM's number (the data SIM's with two).") var phone: String?
            @Option(help: "How long the carrier's gateway takes to answer, in ms.") var latency: Int?
            @OptionGroup var output: OutputOptions

            /// The longest `--timeout` or `--latency` taken.
            static let longestMilliseconds = 3_600_000

            func validate() throws {
                if let phone, phone.count != 11 || !phone.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    throw fail("--phone must be an 11-digit mainland mobile number, got '\(Masking.phone(phone))'")
                }
                if let latency, latency < 0 { throw fail("--latency must be 0 or more milliseconds, got \(latency)") }
                // Any millisecond count is added to the simulator's clock: an hour is far past every SDK timeout.
                for (name, value) in [("--latency", latency), ("--timeout", timeout)] {
                    if let value, value > Self.longestMilliseconds {
                        throw fail("\(name) must be at most \(Self.longestMilliseconds) milliseconds (an hour), got \(value)")
                    }
                }
            }

            func run() throws {
                let changes = timeout != nil || network != nil || carrier != nil || phone != nil || latency != nil
                let (timeout, network, phone, latency) = (self.timeout, self.network, self.phone, self.latency)
                let carrier = self.carrier
                let login: OneTapLogin = try reporting {
                    if !changes { return try store.open(.readOnly).oneTapLogin() }
                    let editor = try staff.editor("login onetap settings")
                    return try store.open(.readWrite).oneTap(by: editor, wall: Instant(Date())) { login, _ in
                        if let timeout { login.timeoutMillis = timeout }
                        if let network { login.network = network }
                        if let carrier { login.carrier = carrier }
                        if let phone { login.phoneNumber = phone }
                        if let latency { login.gatewayLatencyMillis = latency }
                        return login
                    }
                }
                try output.show(OneTapSettingsJSON(login))
            }
        }

        struct Prefetch: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "prefetch", abstract: "Pre-fetch the number: 138****0000, or a result code.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @OptionGroup var output: OutputOptions
            func run() throws { try OneTap.step(store, staff, output, "prefetch") { $0.prefetch(at: $1) } }
        }

        struct Authorize: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "authorize",
                abstract: "The authorization page: a token valid 2 minutes, usable once (at most 30 unused per number in 10 minutes).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Option(help: "The page's login button; it must say 登录 or 注册.") var button = "本机号码一键登录"
            @Flag(help: "Implicit login without the page: no openId.") var implicit = false
            @Flag(help: "The player closes the page (200020).") var cancel = false
            @OptionGroup var output: OutputOptions
            func run() throws {
                let (button, implicit, cancel) = (button, implicit, cancel)
                try OneTap.step(store, staff, output, "authorize") {
                    $0.authorize(buttonText: button, implicit: implicit, cancel: cancel, at: $1)
                }
            }
        }

        struct Exchange: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "exchange", abstract: "The game server swaps a token for the number (shown masked).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Argument(help: "The token authorize printed.") var token: String
            @OptionGroup var output: OutputOptions
            func run() throws {
                let token = token
                try OneTap.step(store, staff, output, "exchange") { $0.exchange(token: token, at: $1) }
            }
        }

        struct Advance: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "advance", abstract: "Move the simulator's clock on by SECONDS (expiry, the rate limit's window).")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @Argument(help: "Seconds, 1 or more.") var seconds: Int64
            @OptionGroup var output: OutputOptions
            func validate() throws {
                guard seconds > 0, seconds <= OneTapLogin.largestAdvanceSeconds else {
                    throw fail("advance takes 1 to \(OneTapLogin.largestAdvanceSeconds) seconds (a year), got \(seconds)")
                }
            }

            func run() throws {
                let seconds = seconds
                try OneTap.step(store, staff, output, "advance") { login, now in
                    login.advance(seconds: seconds)
                    return OneTapOutcome(
                        step: "advance", result: .success, detail: "the simulator's clock moved on \(seconds) s",
                        at: now.adding(.seconds(seconds)))
                }
            }
        }

        struct Delete: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "delete", abstract: "Delete the cached credential: the next login pre-fetches again.")
            @OptionGroup var store: StoreOptions
            @OptionGroup var staff: StaffOptions
            @OptionGroup var output: OutputOptions
            func run() throws { try OneTap.step(store, staff, output, "delete") { $0.deleteCachedCredential(at: $1) } }
        }

        struct Codes: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "codes", abstract: "Every result code of the carrier's table with its meaning.")
            @Argument(help: "A code or words to search for.") var query: String = ""
            @OptionGroup var output: OutputOptions
            func run() throws {
                let rows = OneTapResultCode.search(query)
                guard output.json || !rows.isEmpty else { throw fail("no result code matches '\(query.echoed)'") }
                try output.show(OneTapCodesReport(rows: rows))
            }
        }
    }
}
