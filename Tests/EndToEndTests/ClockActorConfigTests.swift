import Foundation
import Testing

/// One time line a store, a named actor, the config file and a command line that says what it got
/// wrong, through the real binary.
@Suite struct ClockActorConfigTests {
    /// A declinable prompt of the demo store, opened 2026-11-18T10:07:00Z.
    static let prompt = "2000000100000095"

    static func json(_ result: Binary.Result) throws -> Any { try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) }

    /// The newest audit line of the default store.
    static func newestAudit(_ home: TemporaryHome) throws -> [String: Any] {
        let audit = try Binary.run(["audit", "--limit", "1", "--json"], home: home)
        #expect(audit.status == 0, "\(audit.stderr)")
        return (try json(audit) as? [[String: Any]])?.first ?? [:]
    }

    static func writeConfig(_ home: TemporaryHome, _ text: String) throws -> String {
        let folder = home.path("config/storedesk")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/config.toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static var loginName: String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else { return "" }
        return String(cString: name)
    }

    @Test func theActorIsStoredeskActorElseTheLoginNameNeverUnknown() throws {
        let home = TemporaryHome()
        // STOREDESK_ACTOR names the actor when --as does not
        let declined = try Binary.run(
            ["restore", "decline", Self.prompt, "--reason", "refunded by Apple", "--role", "support"], home: home,
            environment: ["STOREDESK_ACTOR": "mia.support"])
        #expect(declined.status == 0, "\(declined.stderr)")
        let first = try Self.newestAudit(home)
        #expect(first["actor"] as? String == "mia.support" && first["action"] as? String == "restore.decline")
        // Without either (and with no USER or LOGNAME in the environment), the login name from the password
        // database
        let login = try Binary.run(
            ["restore", "decline", "2000000100000096", "--reason", "not on this Apple ID", "--role", "support"], home: home)
        #expect(login.status == 0, "\(login.stderr)")
        let second = try Self.newestAudit(home)
        #expect(second["actor"] as? String == Self.loginName)
        #expect(second["actor"] as? String != "unknown" && !(second["actor"] as? String ?? "").isEmpty)
    }

    @Test func theConfigFileGivesActorRoleAndThemeAndFlagsBeatIt() throws {
        let home = TemporaryHome()
        _ = try Self.writeConfig(home, "actor = \"cfg.actor\"\nrole = \"support\"\ntheme = \"light\"\n")
        // The role and actor come from the file: support may decline without --role
        let declined = try Binary.run(["restore", "decline", Self.prompt, "--reason", "refunded by Apple"], home: home)
        #expect(declined.status == 0, "\(declined.stderr)")
        #expect(declined.stderr.isEmpty || !declined.stderr.contains("config"))
        let entry = try Self.newestAudit(home)
        #expect(entry["actor"] as? String == "cfg.actor" && entry["role"] as? String == "support")
        // `config show --json` says what is in force and where from
        let shown = try Binary.run(
            ["config", "show", "--json", "--role", "developer"], home: home, environment: ["STOREDESK_ACTOR": "env.actor"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let config = try #require(try Self.json(shown) as? [String: Any])
        func value(_ key: String) -> [String: String] { (config[key] as? [String: String]) ?? [:] }
        #expect(value("actor") == ["value": "env.actor", "source": "environment"])
        #expect(value("role") == ["value": "developer", "source": "flag"])
        #expect(value("theme") == ["value": "light", "source": "config file"])
        #expect(value("store")["source"] == "default" && value("store")["value"] == home.defaultStore)
        let file = try #require(config["file"] as? [String: Any])
        #expect(file["path"] as? String == home.path("config/storedesk/config.toml"))
        #expect(file["status"] as? String == "read" && file["problem"] is NSNull)
        // The text says the same, a line a value
        let text = try Binary.run(["config", "show"], home: home)
        #expect(text.status == 0)
        #expect(text.stdout.contains("actor  cfg.actor  (config file)"))
        #expect(text.stdout.contains("role   support  (config file)"))
    }

    @Test func aBadConfigFileIsOneLineNamingTheFileAndKeyAndEverythingStartsOnDefaults() throws {
        let home = TemporaryHome()
        let cases: [(text: String, key: String)] = [
            ("role = \"boss\"\n", "'role'"), ("colour = \"red\"\n", "'colour'"), ("actor = 42\n", "'actor'"),
            ("actor = \"unterminated\n", "line 1"),
        ]
        // A theme the config file names that is not there: the file and key named, the built-in theme used
        // (the console exited 1 without naming the file).
        let themed = try Self.writeConfig(home, "theme = \"nope\"\n")
        let snapshotted = try Binary.run(["snapshot", "--screen", "users", "--size", "100x30"], home: home)
        #expect(snapshotted.status == 0, "\(snapshotted.stderr)")
        #expect(snapshotted.stderr.split(separator: "\n").count == 1 && snapshotted.stderr.contains(themed)
            && snapshotted.stderr.contains("'theme'"), "\(snapshotted.stderr)")
        // A config file that is a symbolic link looping on itself is said, not taken for no file.
        try FileManager.default.removeItem(atPath: themed)
        try FileManager.default.createSymbolicLink(atPath: themed, withDestinationPath: themed)
        let looped = try Binary.run(["config", "show", "--json"], home: home)
        #expect(looped.status == 0 && looped.stderr.contains(themed) && looped.stderr.contains("symbolic link"), "\(looped.stderr)")
        try FileManager.default.removeItem(atPath: themed)
        for (text, key) in cases {
            let path = try Self.writeConfig(home, text)
            // A command still runs, on the defaults
            let shown = try Binary.run(["config", "show", "--json"], home: home)
            #expect(shown.status == 0, "\(shown.stderr)")
            let lines = shown.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(shown.stderr)")
            #expect(lines.first?.contains(path) == true && lines.first?.contains(key) == true, "\(shown.stderr)")
            let config = try Self.json(shown) as? [String: Any]
            #expect((config?["role"] as? [String: String]) == ["value": "operator", "source": "default"])
            #expect((config?["file"] as? [String: Any])?["status"] as? String == "ignored")
            // And the console's own view starts too
            let snapshot = try Binary.run(["snapshot", "--screen", "users", "--size", "100x30"], home: home)
            #expect(snapshot.status == 0, "\(snapshot.stderr)")
            #expect(snapshot.stderr.split(separator: "\n").count == 1 && snapshot.stderr.contains(key), "\(snapshot.stderr)")
            #expect(snapshot.stdout.contains("operator"))
        }
    }

    @Test func restoreListAgesAPromptAtTheStoresClockAsSnapshotDoes() throws {
        let home = TemporaryHome()
        let listed = try Binary.run(["restore", "list"], home: home)
        #expect(listed.status == 0, "\(listed.stderr)")
        let line = try #require(listed.stdout.split(separator: "\n").first { $0.hasPrefix(Self.prompt) })
        // 2026-11-18T10:07 to the demo store's clock, 2026-11-20T08:00: not the wall clock's days
        #expect(line.contains("  1d 21h  "), "\(line)")
        #expect(listed.stderr.contains("at store clock 2026-11-20T08:00:00Z"), "\(listed.stderr)")
        let snapshot = try Binary.run(["snapshot", "--screen", "restores", "--size", "160x40"], home: home)
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        let row = try #require(snapshot.stdout.split(separator: "\n").first { $0.contains(Self.prompt) })
        #expect(row.contains("1d 21h"), "\(row)")
    }

    @Test func aSimulationStampsFromTheStoresClockAndTheNextCommandResumesThere() throws {
        let home = TemporaryHome()
        // A simulation of 30 s on the demo store starts at its clock (not the wall clock) and moves it on
        let simulated = try Binary.run(["simulate", "--seconds", "30", "--rate", "2", "--seed", "5", "--json"], home: home)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let check = try Binary.run(["check", "--json"], home: home)
        #expect(check.status == 0, "\(check.stdout)")
        // The next command answers at the moved clock: later than the demo's 08:00, within the 30 s
        let listed = try Binary.run(["restore", "list"], home: home)
        let note = try #require(listed.stderr.split(separator: "\n").first { $0.hasPrefix("at store clock ") })
        let stamp = String(note.dropFirst("at store clock ".count))
        #expect(stamp > "2026-11-20T08:00:00Z" && stamp <= "2026-11-20T08:00:30Z", "\(note)")
        // And what the console would open at is that clock: a write now is stamped there, never before
        let declined = try Binary.run(
            ["restore", "decline", Self.prompt, "--reason", "refunded by Apple", "--role", "support", "--as", "li.support"],
            home: home)
        #expect(declined.status == 0, "\(declined.stderr)")
        let entry = try Self.newestAudit(home)
        #expect(entry["at"] as? String == stamp, "\(entry)")
    }

    @Test func aMistypedSubcommandGetsDidYouMeanOnOneLine() throws {
        let home = TemporaryHome()
        let typo = try Binary.run(["restor", "list"], home: home)
        #expect(typo.status != 0)
        #expect(typo.stdout.isEmpty)
        #expect(typo.stderr.split(separator: "\n").count == 1, "\(typo.stderr)")
        #expect(typo.stderr.contains("did you mean `storedesk restore`?"), "\(typo.stderr)")
        let nested = try Binary.run(["restore", "lst"], home: home)
        #expect(nested.status != 0 && nested.stderr.contains("did you mean `storedesk restore list`?"), "\(nested.stderr)")
        #expect(nested.stderr.split(separator: "\n").count == 1)
        // A command named after its type (`Consumption` is `consumption`): found, so what is missing is said.
        let missing = try Binary.run(["support", "consumption", "request"], home: home)
        #expect(missing.status != 0 && missing.stderr.contains("Missing expected argument '<transaction>'"), "\(missing.stderr)")
        let deep = try Binary.run(["support", "consumption", "lst"], home: home)
        #expect(deep.stderr.contains("did you mean `storedesk support consumption list`?"), "\(deep.stderr)")
    }

    @Test func anUnknownOptionIsNamedNotNothingToChange() throws {
        let home = TemporaryHome()
        let bogus = try Binary.run(["apps", "set", "1001", "--bogus-flag", "x", "--role", "developer"], home: home)
        #expect(bogus.status != 0)
        #expect(bogus.stderr.split(separator: "\n").count == 1, "\(bogus.stderr)")
        #expect(bogus.stderr.contains("unknown option '--bogus-flag'"), "\(bogus.stderr)")
        #expect(!bogus.stderr.contains("nothing to change"))
        // A real refusal of validate() is still said as it was
        let nothing = try Binary.run(["apps", "set", "1001", "--role", "developer"], home: home)
        #expect(nothing.status != 0 && nothing.stderr.contains("nothing to change"), "\(nothing.stderr)")
    }
}
