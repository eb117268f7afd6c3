import Foundation
import Testing

/// `storedesk apps add|set|list|show` and the callback commands' `--app` / `--app-key-file`, through the
/// real binary: the AppKey comes from a file or stdin, and no output shows it in the clear.
@Suite struct AppsCommandTests {
    static let key = "Xk9-fresh-app-key-7741"
    static let developer = ["--role", "developer", "--as", "wei.dev"]

    /// The demo store in a private home, and its path.
    static func store(_ home: TemporaryHome) throws -> String {
        let built = try Binary.run(["apps", "list"], home: home)
        #expect(built.status == 0, "\(built.stderr)")
        return home.defaultStore
    }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// The store's bytes: the file and its write-ahead log (an empty log and none hold the same).
    static func bytes(_ path: String) -> [Data] {
        [FileManager.default.contents(atPath: path) ?? Data(), FileManager.default.contents(atPath: path + "-wal") ?? Data()]
    }

    @Test func addFromAFileChangeFromStdinAndNoOutputShowsTheKey() throws {
        let home = TemporaryHome()
        _ = try Self.store(home)
        let keyFile = home.path("app.key")
        try Data((Self.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let add = try Binary.run(
            ["apps", "add", "2001", "--name", "星尘 Stardust", "--bundle-id", "com.example.stardust", "--app-key-file", keyFile,
             "--apple-app-id", "6740000201", "--environment", "sandbox", "--callback-url", "https://game.example/pay/callback",
             "--grace-days", "16", "--ownership", "keep", "--currency-per-yuan", "100", "--json"] + Self.developer,
            home: home)
        #expect(add.status == 0, "\(add.stderr)")
        let added = try #require(try Self.json(add.stdout) as? [String: Any])
        #expect(added["app_key"] as? String == "Xk9-****41")
        #expect(added["apple_app_id"] as? Int == 6_740_000_201)
        #expect(added["environment"] as? String == "sandbox")
        #expect(added["callback_url"] as? String == "https://game.example/pay/callback")
        #expect(added["grace_days"] as? Int == 16)
        #expect(added["ownership"] as? String == "keep")
        #expect(added["currency_per_yuan"] as? Int == 100)

        // A new key from standard input; the Apple app id and the callback URL cleared.
        let set = try Binary.run(
            ["apps", "set", "2001", "--app-key-file", "-", "--apple-app-id", "", "--callback-url", ""] + Self.developer,
            home: home, stdin: "second-key-from-stdin-0099\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "app 2001: app key Xk9-****41 → seco****99; apple app id 6740000201 → none; callback url https://game.example/pay/callback → none\n")
        let unchanged = try Binary.run(["apps", "set", "2001", "--grace-days", "16"] + Self.developer, home: home)
        #expect(unchanged.stdout == "app 2001: unchanged\n")

        let list = try Binary.run(["apps", "list"], home: home)
        let listJSON = try Binary.run(["apps", "list", "--json"], home: home)
        let show = try Binary.run(["apps", "show", "2001"], home: home)
        let showJSON = try Binary.run(["apps", "show", "2001", "--json"], home: home)
        let audit = try Binary.run(["audit", "--json"], home: home)
        for run in [add, set, list, listJSON, show, showJSON, audit] {
            #expect(run.status == 0, "\(run.stderr)")
            for secret in [Self.key, "second-key-from-stdin-0099"] {
                #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret))
            }
        }
        #expect(list.stdout.split(separator: "\n").first?.hasPrefix("ID    NAME") == true)
        #expect(list.stdout.contains("2001  星尘 Stardust"))
        let apps = try #require(try Self.json(listJSON.stdout) as? [[String: Any]])
        #expect(apps.map { $0["id"] as? String } == ["1001", "1002", "1003", "2001"])
        #expect(apps.allSatisfy { ($0["app_key"] as? String)?.contains("****") == true })
        let shown = try #require(try Self.json(showJSON.stdout) as? [String: Any])
        #expect(Set(shown.keys) == [
            "id", "name", "bundle_id", "app_key", "apple_app_id", "currency_per_yuan", "ownership", "grace_days", "environment",
            "callback_url", "notification_url", "products", "catalogue",
        ])
        #expect(shown["app_key"] as? String == "seco****99")
        #expect(shown["apple_app_id"] is NSNull && shown["callback_url"] is NSNull && shown["catalogue"] is NSNull)
        #expect(shown["products"] as? Int == 0)
        #expect(show.stdout.contains("app key       seco****99"))
        #expect(audit.stdout.contains("app.add") && audit.stdout.contains("app.set"))
    }

    @Test func badValuesAreOneLineErrorsAndTheStoreIsUntouched() throws {
        let home = TemporaryHome()
        let path = try Self.store(home)
        let keyFile = home.path("app.key")
        try Data((Self.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        try Data("short\n".utf8).write(to: URL(fileURLWithPath: home.path("short.key")))
        try Data("".utf8).write(to: URL(fileURLWithPath: home.path("empty.key")))
        let before = Self.bytes(path)
        let add = ["apps", "add", "2001", "--name", "g", "--bundle-id", "com.example.g", "--app-key-file", keyFile]
        let cases: [([String], String)] = [
            (add, "only a developer may change an app's settings (wei.op (operator))"),
            (add + ["--readonly"] + Self.developer, "--readonly: `storedesk apps add` writes the store, so nothing was done"),
            (["apps", "add", "1001", "--name", "g", "--bundle-id", "com.example.g", "--app-key-file", keyFile] + Self.developer,
             "app 1001 already exists (星海征途): change it with `storedesk apps set 1001 ...`"),
            (["apps", "add", "20 01", "--name", "g", "--bundle-id", "com.example.g", "--app-key-file", keyFile] + Self.developer,
             "app id '20 01' must be 1 to 64 letters, digits, '.', '_' or '-'"),
            (["apps", "add", "2001", "--bundle-id", "com.example.g", "--app-key-file", keyFile] + Self.developer, "apps add needs --name"),
            (["apps", "add", "2001", "--name", "g", "--bundle-id", "com.example.g"] + Self.developer,
             "apps add needs --app-key-file FILE (or - for standard input)"),
            (["apps", "add", "2001", "--name", "g", "--bundle-id", "example", "--app-key-file", keyFile] + Self.developer,
             "--bundle-id 'example' is not a bundle id: letters, digits and '-' in parts separated by '.', like com.example.game"),
            (add + ["--app-key", Self.key] + Self.developer,
             "--app-key is not taken here: other users can read a process's arguments; put the AppKey in a file and use --app-key-file FILE (or - for standard input)"),
            (["apps", "add", "2001", "--name", "g", "--bundle-id", "com.example.g", "--app-key-file", home.path("short.key")] + Self.developer,
             "--app-key-file \(home.path("short.key")): an AppKey has 8 to 256 characters, this one has 5"),
            (["apps", "add", "2001", "--name", "g", "--bundle-id", "com.example.g", "--app-key-file", home.path("empty.key")] + Self.developer,
             "--app-key-file \(home.path("empty.key")) holds no AppKey (it is empty)"),
            (["apps", "add", "2001", "--name", "g", "--bundle-id", "com.example.g", "--app-key-file", home.path("nope")] + Self.developer,
             "--app-key-file \(home.path("nope")): no such file"),
            (add + ["--apple-app-id", "12ab"] + Self.developer,
             "--apple-app-id '12ab' must be App Store Connect's numeric app id (1 to 12 digits), or \"\" to clear it"),
            (add + ["--currency-per-yuan", "0"] + Self.developer, "--currency-per-yuan '0' must be a whole number from 1 to 1000000"),
            (add + ["--grace-days", "7"] + Self.developer, "--grace-days '7' must be 0, 3, 16 or 28"),
            (add + ["--ownership", "steal"] + Self.developer, "--ownership 'steal' must be transfer, keep or share"),
            (add + ["--environment", "xcode"] + Self.developer, "--environment 'xcode' must be sandbox, production or both"),
            (add + ["--callback-url", "ftp://game.example/cb"] + Self.developer,
             "--callback-url 'ftp://game.example/cb' must start with http:// or https://"),
            (add + ["--callback-url", "https://user:pw@game.example/cb"] + Self.developer,
             "--callback-url 'https://user:pw@game.example/cb' must not carry a user name or password"),
            (add + ["--callback-url", "http://game example/cb"] + Self.developer,
             "--callback-url 'http://game example/cb' has spaces or characters a URL must percent-encode"),
            (add + ["--callback-url", "http://:80/cb"] + Self.developer, "--callback-url 'http://:80/cb' has no valid host[:port]"),
            (add + ["--callback-url", "http://game.example:99999/"] + Self.developer,
             "--callback-url 'http://game.example:99999/' has no valid host[:port]"),
            (["apps", "set", "2001", "--name", "x"] + Self.developer, "no app with id '2001' (known: 1001, 1002, 1003)"),
            (["apps", "set", "1001"] + Self.developer, "apps set 1001: nothing to change (give at least one option, see --help)"),
            (["apps", "set", "1001", "--name", ""] + Self.developer, "--name '' must be 1 to 100 characters with no control characters"),
            (["apps", "show", "2001"], "no app with id '2001' (known: 1001, 1002, 1003)"),
        ]
        for (arguments, message) in cases {
            let run = try Binary.run(arguments, home: home, environment: ["USER": "wei.op"])
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == "storedesk: " + message + "\n", "\(arguments)")
            #expect(!run.stderr.contains(Self.key) && !run.stdout.contains(Self.key), "\(arguments)")
            #expect(Self.bytes(path) == before, "\(arguments)")
        }
    }

    @Test func callbacksSignAndVerifyWithTheStoresKeyOrAKeyFile() throws {
        let home = TemporaryHome()
        _ = try Self.store(home)
        let demoKey = "3f9a2c7e81d04b6a9e5f1c2d7b8a6e40"
        let keyFile = home.path("1001.key")
        try Data((demoKey + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let fields = "order_id=P1\npayment=appstore\nclient_id=1001\namount=600\n"
        let byStore = try Binary.run(["callback", "sign", "--app", "1001"], home: home, stdin: fields)
        let byFile = try Binary.run(["callback", "sign", "--app-key-file", keyFile], home: home, stdin: fields)
        let byFlag = try Binary.run(["callback", "sign", "--app-key", demoKey], home: home, stdin: fields)
        #expect(byStore.status == 0 && byFile.status == 0 && byFlag.status == 0, "\(byStore.stderr)\(byFile.stderr)")
        #expect(byStore.stdout == byFlag.stdout && byFile.stdout == byFlag.stdout)
        let body = byStore.stdout.trimmingCharacters(in: .newlines)
        for source in [["--app", "1001"], ["--app-key-file", keyFile]] {
            let verified = try Binary.run(["callback", "verify", "--json"] + source, home: home, stdin: body + "\n")
            let object = try #require(try Self.json(verified.stdout) as? [String: Any])
            #expect(object["expected_sign"] as? String == object["received_sign"] as? String, "\(source)")
            #expect(!verified.stdout.contains(demoKey))
            #expect((object["hashed_string"] as? String)?.hasSuffix("3f9a****40") == true)
        }
        // Another app's key does not make the same sign.
        let other = try Binary.run(["callback", "verify", "--app", "1002"], home: home, stdin: body + "\n")
        #expect(other.status == 1)
        #expect(other.stdout.hasPrefix("invalid (bad_signature)"))
        let refusals: [([String], String)] = [
            (["callback", "sign"], "give the AppKey with --app APP, --app-key-file FILE or --app-key K"),
            (["callback", "sign", "--app", "1001", "--app-key-file", keyFile], "give only one of --app, --app-key-file and --app-key"),
            (["callback", "sign", "--app", "9"], "no app with id '9' (known: 1001, 1002, 1003)"),
            (["callback", "verify", "--app-key-file", "-"], "--app-key-file -: standard input carries the callback here; give a file"),
            (["callback", "sign", "--app-key-file", home.path("missing.key")], "--app-key-file \(home.path("missing.key")): no such file"),
        ]
        for (arguments, message) in refusals {
            let run = try Binary.run(arguments, home: home, stdin: fields)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stderr == "storedesk: " + message + "\n", "\(arguments)")
        }
    }
}
