import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskTrust

/// `storedesk apps add|set|list|show`: a team's own apps, their AppKeys (from a file or stdin, never the
/// command line) and what StoreDesk checks signed data and sends callbacks against.
struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "A team's own apps: add, change, list, show (AppKeys masked).",
        subcommands: [Add.self, Save.self, List.self, Show.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an app (developers only; audited). The AppKey comes from --app-key-file FILE, or - for stdin.",
            discussion: "Defaults: --currency-per-yuan 10, --ownership transfer, --grace-days 0, --environment both.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The platform AppID (the game's client_id).") var id: String
        @OptionGroup var options: AppSettingsOptions
        @OptionGroup var output: OutputOptions

        func validate() throws { _ = try reporting(appId) }

        /// The AppID argument, checked.
        func appId() throws -> String {
            try AppSettingsOptions.checked { () throws(AppSettingError) in try AppSettings.parseAppId(id) }
        }

        func run() throws {
            let app = try reporting { () throws -> App in
                let appId = try appId()
                let settings = try options.settings()
                let app = try AppSettingsOptions.checked { () throws(AppSettingError) in try settings.newApp(id: appId) }
                let developer = try staff.member("apps add", may: .editApps)
                let database = try store.open(.readWrite)
                try database.addApp(app, by: developer, at: database.commandNow().instant)
                return app
            }
            try output.show(AppAddedReport(app: app))
        }
    }

    struct Save: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change an app's settings (developers only; audited). Only the options given change.",
            discussion: "--apple-app-id \"\" and --callback-url \"\" clear those settings.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var staff: StaffOptions
        @Argument(help: "The platform AppID.") var id: String
        @OptionGroup var options: AppSettingsOptions
        @OptionGroup var output: OutputOptions

        @OptionGroup var apiKey: AppAPIKeyOptions

        func validate() throws {
            guard options.givesSomething || apiKey.givesSomething else {
                throw fail("apps set \(id): nothing to change (give at least one option, see --help)")
            }
        }

        func run() throws {
            let (app, changes) = try reporting { () throws -> (App, [String]) in
                // The key is read and reduced to its public half before anything is written.
                let key = try apiKey.key(appId: id)
                let developer = try staff.member("apps set", may: .editApps)
                let settings = try options.settings()
                let database = try store.open(.readWrite)
                var changed: App?
                var changes: [String] = []
                if options.givesSomething,
                    let (old, new) = try database.updateApp(id: id, settings, by: developer, at: database.commandNow().instant)
                {
                    changed = new
                    changes = AppSettings.differences(old, new)
                }
                // An unknown app is refused as `apps show` refuses it, naming the known ones.
                let app = try changed ?? database.appOverview(id: id).app
                if let key {
                    let replaced = try database.setAppAPIKey(key, by: developer, at: database.commandNow().instant)
                    changes.append("API key \(key.keyId) (issuer \(key.issuerId)) \(replaced == nil ? "added" : "replaced"), its public key kept")
                }
                return (app, changes)
            }
            try output.show(AppChangeReport(app: app, changes: changes))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Every app, its AppKey masked.")
        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let apps = try reporting { try store.open(.readOnly).appOverviews() }
            try output.show(AppListReport(apps: apps))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "One app's settings, its AppKey masked.")
        @OptionGroup var store: StoreOptions
        @Argument(help: "The platform AppID.") var id: String
        @OptionGroup var output: OutputOptions

        func run() throws {
            let overview = try reporting { try store.open(.readOnly).appOverview(id: id) }
            try output.show(AppReport(overview: overview))
        }
    }
}

/// The settings `apps add` and `apps set` share. Values arrive as text and are checked here, so a bad
/// one is a one-line error naming it, before the store is opened.
struct AppSettingsOptions: ParsableArguments {
    @Option(help: "The app's name.") var name: String?
    @Option(name: .customLong("bundle-id"), help: "Its bundle id, e.g. com.example.game.") var bundleId: String?
    @Option(
        name: .customLong("app-key-file"),
        help: ArgumentHelp("A file holding the AppKey on one line, or - to read it from standard input.", valueName: "file"))
    var appKeyFile: String?
    @Option(name: .customLong("apple-app-id"), help: ArgumentHelp("App Store Connect's numeric app id (\"\" clears it).", valueName: "n"))
    var appleAppId: String?
    @Option(name: .customLong("currency-per-yuan"), help: ArgumentHelp("Game currency per yuan, 1 to 1000000.", valueName: "n"))
    var currencyPerYuan: String?
    @Option(help: ArgumentHelp("Who keeps a restored purchase: transfer, keep or share.", valueName: "mode")) var ownership: String?
    @Option(name: .customLong("grace-days"), help: ArgumentHelp("Billing grace period: 0, 3, 16 or 28.", valueName: "days"))
    var graceDays: String?
    @Option(help: ArgumentHelp("App Store environments it takes: sandbox, production or both.", valueName: "env"))
    var environment: String?
    @Option(name: .customLong("callback-url"), help: ArgumentHelp("The game server's callback URL, http or https (\"\" clears it).", valueName: "url"))
    var callbackURL: String?
    @Option(
        name: .customLong("notification-url"),
        help: ArgumentHelp("Where `serve` sends App Store Server Notifications V2, http or https (\"\" clears it).", valueName: "url"))
    var notificationURL: String?
    /// Present only to refuse it without repeating the key: a secret is never taken from the command line.
    @Option(name: .customLong("app-key"), help: .hidden) var appKeyOnCommandLine: String?

    /// Whether any setting was given at all (`apps set` with none has nothing to do).
    var givesSomething: Bool {
        [name, bundleId, appKeyFile, appleAppId, currencyPerYuan, ownership, graceDays, environment, callbackURL, notificationURL, appKeyOnCommandLine]
            .contains { $0 != nil }
    }

    /// Every value checked before `run()`, so a bad one is refused before a key file or stdin is read.
    func validate() throws { _ = try reporting(checkedValues) }

    /// The settings given, each checked; the AppKey read from its file or stdin.
    func settings() throws -> AppSettings {
        var settings = try checkedValues()
        if let appKeyFile { settings.appKey = try AppKeyFile.read(appKeyFile) }
        return settings
    }

    /// The settings given but the AppKey, each checked.
    private func checkedValues() throws -> AppSettings {
        if appKeyOnCommandLine != nil {
            throw StoreError.invalidArgument(
                "--app-key is not taken here: other users can read a process's arguments; put the AppKey in a file and use --app-key-file FILE (or - for standard input)")
        }
        var settings = AppSettings()
        try Self.checked { () throws(AppSettingError) in
            settings.name = try name.map(AppSettings.parseName)
            settings.bundleId = try bundleId.map(AppSettings.parseBundleId)
            settings.appleAppId = try appleAppId.map(AppSettings.parseAppleAppId)
            settings.currencyPerYuan = try currencyPerYuan.map(AppSettings.parseCurrencyPerYuan)
            settings.restoreOwnership = try ownership.map(AppSettings.parseOwnership)
            settings.gracePeriodDays = try graceDays.map(AppSettings.parseGraceDays)
            settings.environments = try environment.map(AppSettings.parseEnvironments)
            settings.callbackURL = try callbackURL.map(AppSettings.parseCallbackURL)
            settings.notificationURL = try notificationURL.map(AppSettings.parseNotificationURL)
        }
        return settings
    }

    /// Runs a check, turning its refusal into the one-line error every command gives.
    static func checked<T>(_ body: () throws(AppSettingError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw StoreError.invalidArgument(error.description)
        }
    }
}

/// `apps set APP --api-key-file KEY.pem --key-id ID --issuer-id ISS`: an App Store Server API key the
/// app's server signs its requests to `serve`'s `/inApps` with. Only its public half is kept: a private
/// key given (Apple's `.p8`) is reduced to it at once. The key comes from a file, never the command line.
struct AppAPIKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("api-key-file"),
        help: ArgumentHelp("An App Store Server API key (.p8 private key or PUBLIC KEY PEM); only its public half is kept.", valueName: "file"))
    var file: String?
    @Option(name: .customLong("key-id"), help: ArgumentHelp("The API key's id (the JWT's kid).", valueName: "id")) var keyId: String?
    @Option(name: .customLong("issuer-id"), help: ArgumentHelp("The API key's issuer id (the JWT's iss).", valueName: "id"))
    var issuerId: String?

    var givesSomething: Bool { file != nil || keyId != nil || issuerId != nil }

    func validate() throws {
        guard givesSomething else { return }
        guard file != nil, let keyId, let issuerId else { throw fail("--api-key-file, --key-id and --issuer-id go together: give all three") }
        for (name, value) in [("--key-id", keyId), ("--issuer-id", issuerId)] {
            guard !value.isEmpty, value.count <= 64, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw fail("\(name) must be 1 to 64 letters, digits or '-'")
            }
        }
    }

    /// The key's public half, read from its file; nil when no key was given.
    func key(appId: String) throws -> AppAPIKey? {
        guard let file, let keyId, let issuerId else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw StoreError.invalidArgument("--api-key-file \(file): no such file")
        }
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw StoreError.invalidArgument("--api-key-file \(file): cannot read it (permission denied)")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: AppKeyFile.limit + 1)) ?? Data()
        guard data.count <= AppKeyFile.limit, let text = String(data: data, encoding: .utf8) else {
            throw StoreError.invalidArgument("--api-key-file \(file): not a PEM key file")
        }
        do {
            let key = try AppStoreAPIKey(keyId: keyId, issuerId: issuerId, pem: text)
            return AppAPIKey(appId: appId, keyId: keyId, issuerId: issuerId, publicKeyDER: key.publicKeyDER)
        } catch {
            throw StoreError.invalidArgument("--api-key-file \(file): \(error.description)")
        }
    }
}

/// Reading an AppKey from a file or standard input: the only ways StoreDesk takes one.
enum AppKeyFile {
    /// The most an AppKey file may hold; a key is at most 256 characters.
    static let limit = 64 * 1024

    /// The key in `path` (`-`: standard input), checked; the error names the file, never the key.
    static func read(_ path: String) throws -> String {
        let source = path == "-" ? "standard input" : path
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw StoreError.invalidArgument("--app-key-file \(path): no such file")
            }
            guard !isDirectory.boolValue else { throw StoreError.invalidArgument("--app-key-file \(path) is a directory") }
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw StoreError.invalidArgument("--app-key-file \(path): cannot read it (permission denied)")
            }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw StoreError.invalidArgument("--app-key-file \(source): cannot read it (\(error.localizedDescription))")
        }
        guard data.count <= limit else { throw StoreError.invalidArgument("--app-key-file \(source): too large for an AppKey") }
        guard let text = String(data: data, encoding: .utf8) else {
            throw StoreError.invalidArgument("--app-key-file \(source): not text")
        }
        do {
            return try AppSettings.parseAppKey(text, source: "--app-key-file \(source)")
        } catch {
            throw StoreError.invalidArgument(error.description)
        }
    }
}
