import Foundation
import Testing

@Suite struct CLITests {
    @Test func firstRunBuildsTheDefaultStoreFromTheDemoDataAndCheckIsClean() throws {
        let home = TemporaryHome()
        let result = try Binary.run(["check"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("ok: "))
        #expect(FileManager.default.fileExists(atPath: home.defaultStore))
        let json = try Binary.run(["check", "--json"], home: home)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["clean"] as? Bool == true)
        #expect((object?["violations"] as? [Any])?.isEmpty == true)
    }

    /// Help is asked for, not an error: the whole text on standard output, exit 0, for the tool, a
    /// command and a subcommand, by flag or by `help`.
    @Test func helpIsPrintedWholeOnStandardOutput() throws {
        let home = TemporaryHome()
        let asked: [(args: [String], names: String)] = [
            (["--help"], "SUBCOMMANDS:"), (["-h"], "SUBCOMMANDS:"), (["keys", "--help"], "USAGE: storedesk keys"),
            (["help", "subs"], "USAGE: storedesk subs"), (["trust", "remove", "--help"], "--json"),
        ]
        for item in asked {
            let result = try Binary.run(item.args, home: home)
            #expect(result.status == 0, "\(item.args): \(result.stderr)")
            #expect(result.stdout.contains(item.names) && result.stdout.contains("OPTIONS:"), "\(item.args): \(result.stdout)")
            #expect(result.stderr.isEmpty, "\(item.args): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.defaultStore))
        // The version too (it exited 64, "unknown option"): one line, exit 0, no store made.
        let version = try Binary.run(["--version"], home: home)
        #expect(version.status == 0 && version.stdout.hasPrefix("storedesk ") && version.stdout.split(separator: "\n").count == 1, "\(version)")
        #expect(!FileManager.default.fileExists(atPath: home.defaultStore))
    }

    /// A binary copied away from its build folder (as to /usr/local/bin) finds its demo dataset and
    /// themes without the resource bundles beside it, where SwiftPM's `Bundle.module` stopped it with
    /// a fatal error.
    @Test func aBinaryCopiedAwayFromItsBuildStillBuildsTheDefaultStore() throws {
        let home = TemporaryHome()
        let copy = home.path("bin/storedesk")
        try FileManager.default.createDirectory(atPath: home.path("bin"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Binary.path, toPath: copy)
        let check = try Binary.run(["check"], home: home, binary: copy)
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.hasPrefix("ok: "))
        let themes = try Binary.run(["themes", "list"], home: home, binary: copy)
        #expect(themes.status == 0 && themes.stdout.contains("high-contrast"), "\(themes.stdout)\(themes.stderr)")
        let frame = try Binary.run(["snapshot", "--size", "80x24"], home: home, binary: copy)
        #expect(frame.status == 0 && frame.stdout.contains("张伟"), "\(frame.stderr)")
    }

    @Test func userShowAndSearchInTextAndJSON() throws {
        let home = TemporaryHome()
        let show = try Binary.run(["user", "show", "10000001", "--json"], home: home)
        #expect(show.status == 0, "\(show.stderr)")
        let profile = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        let user = profile?["user"] as? [String: Any]
        #expect(user?["name"] as? String == "张伟")
        #expect(user?["phone"] as? String == "138****0000")
        #expect(user?["site_name"] as? String == "WeChat")
        #expect(!show.stdout.contains("13800000000"))
        let search = try Binary.run(["user", "search", "张伟", "--json"], home: home)
        let users = try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [[String: Any]]
        #expect(users?.map { $0["id"] as? String } == ["10000001"])
        let byPhone = try Binary.run(["user", "search", "0000"], home: home)
        #expect(byPhone.stdout.contains("138****0000"))
        let text = try Binary.run(["user", "show", "10000001"], home: home)
        #expect(text.stdout.contains("phone           138****0000"))
    }

    @Test func seedIsDeterministicAndRefusesToOverwrite() throws {
        let home = TemporaryHome()
        let a = try Binary.run(["seed", "--users", "300", "--seed", "9", "--db", home.path("a.sqlite"), "--json"], home: home)
        #expect(a.status == 0, "\(a.stderr)")
        let b = try Binary.run(["seed", "--users", "300", "--seed", "9", "--db", home.path("b.sqlite")], home: home)
        #expect(b.stdout.contains("seeded 300 users"))
        let dumpA = try shell("sqlite3 \(home.path("a.sqlite")) 'SELECT * FROM store_transaction ORDER BY id' | md5sum").output
        let dumpB = try shell("sqlite3 \(home.path("b.sqlite")) 'SELECT * FROM store_transaction ORDER BY id' | md5sum").output
        #expect(dumpA == dumpB)
        #expect(try shell("sqlite3 \(home.path("a.sqlite")) 'PRAGMA integrity_check'").output == "ok\n")
        #expect(try Binary.run(["check", "--db", home.path("a.sqlite")], home: home).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: home.path("a.sqlite")))
        let again = try Binary.run(["seed", "--users", "5", "--db", home.path("a.sqlite")], home: home)
        #expect(again.status != 0)
        #expect(again.stderr == "storedesk: \(home.path("a.sqlite")) already exists: pass --force to replace it\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: home.path("a.sqlite"))) == before)
        let forced = try Binary.run(["seed", "--users", "5", "--db", home.path("a.sqlite"), "--force"], home: home)
        #expect(forced.status == 0)
    }

    /// Every bad input: one line on stderr naming the file or value, a non-zero exit, the file untouched.
    @Test func badInputsGiveOneLineAndLeaveTheFileAlone() throws {
        let home = TemporaryHome()
        let notes = home.path("notes.txt")
        try "just some notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let store = home.path("store.sqlite")
        #expect(try Binary.run(["seed", "--users", "20", "--db", store], home: home).status == 0)
        let future = home.path("future.sqlite")
        try FileManager.default.copyItem(atPath: store, toPath: future)
        try shell("sqlite3 \(future) \"PRAGMA journal_mode=DELETE; INSERT INTO grdb_migrations VALUES ('v99-future')\"")
        let readOnly = home.path("readonly.sqlite")
        try FileManager.default.copyItem(atPath: store, toPath: readOnly)
        try shell("sqlite3 \(readOnly) 'PRAGMA journal_mode=DELETE'; chmod 444 \(readOnly)")

        let cases: [(args: [String], file: String?, message: String)] = [
            (["check", "--db", notes], notes, "storedesk: \(notes) is not a SQLite database"),
            (["user", "show", "1", "--db", notes], notes, "storedesk: \(notes) is not a SQLite database"),
            (["check", "--db", future], future, "storedesk: \(future) was written by a newer StoreDesk (unknown migrations: v99-future): upgrade storedesk"),
            (["check", "--db", home.path("missing.sqlite")], nil, "storedesk: no store at \(home.path("missing.sqlite")) (`storedesk config show` names your store file; `storedesk seed --db \(home.path("missing.sqlite"))` makes a new one)"),
            (["user", "show", "no-such-user", "--db", store], store, "storedesk: no user with id 'no-such-user'"),
            (["snapshot", "--db", store, "--screen", "nope"], store, "storedesk: unknown screen 'nope' (have: users, queue, restores, audit, subscriptions, codes, login, onetap, find, consumption)"),
            (["snapshot", "--db", store, "--select", "ghost"], store, "storedesk: no user with id 'ghost'"),
            (["snapshot", "--db", readOnly, "--theme", "no-such-theme"], readOnly, "storedesk: no-such-theme: no such theme (have: colorblind, dark, high-contrast, light, mono)"),
            (["seed", "--users=-3", "--db", home.path("neg.sqlite")], nil, "storedesk: --users must be from 0 to 10000000 (ten million), got -3"),
        ]
        for item in cases {
            let before = try item.file.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
            let result = try Binary.run(item.args, home: home)
            #expect(result.status != 0, "\(item.args) exited 0")
            #expect(result.stderr == item.message + "\n", "\(item.args)")
            if let file = item.file {
                #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before, "\(file) changed")
            }
        }
        // A value an option does not take is refused by the parser: one line naming the option and what it
        // takes, the usage exit status (64), the store untouched.
        let usage: [(args: [String], prefix: String)] = [
            (["snapshot", "--db", store, "--size", "huge"], "storedesk: The value 'huge' is invalid for '--size <WIDTHxHEIGHT>'"),
            (["snapshot", "--db", store, "--role", "boss"],
             "storedesk: The value 'boss' is invalid for '--role <role>'. Please provide one of 'operator', 'support' or 'developer'."),
            // Six choices or more are listed on the one line too (ArgumentParser would write one a line).
            (["login", "onetap", "settings", "--db", store, "--carrier", "orbit"],
             "storedesk: The value 'orbit' is invalid for '--carrier <carrier>'. Please provide one of 'mobile', 'unicom', 'telecom', 'dual', 'none' or 'other'. (see"),
        ]
        for item in usage {
            let before = try Data(contentsOf: URL(fileURLWithPath: store))
            let result = try Binary.run(item.args, home: home)
            #expect(result.status == 64, "\(item.args)")
            #expect(result.stderr.hasPrefix(item.prefix) && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        }
        // A read-only file is fine for reading and refused for the console's writes.
        #expect(try Binary.run(["check", "--db", readOnly], home: home).status == 0)
        let malformed = home.url.appendingPathComponent("Data")
        try FileManager.default.createDirectory(at: malformed, withIntermediateDirectories: true)
        let fresh = TemporaryHome()
        let broken = try Binary.run(["check"], home: fresh, environment: ["STOREDESK_DATA": malformed.path])
        #expect(broken.status != 0)
        #expect(broken.stderr == "storedesk: \(malformed.path)/meta.json: missing or unreadable\n")
        #expect(!FileManager.default.fileExists(atPath: fresh.defaultStore))
    }

    @Test func snapshotPrintsAFrameWithoutATerminal() throws {
        let home = TemporaryHome()
        let result = try Binary.run(["snapshot", "--size", "80x24", "--select", "10000003"], home: home)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 25)
        #expect(result.stdout.contains("小龙🐉"))
        #expect(result.stdout.contains("150****1234"))
    }

    /// `snapshot` with only its own options skips ArgumentParser for speed; every command line must
    /// give the same frame, error and exit code either way.
    @Test func snapshotFastPathMatchesTheFullParser() throws {
        let home = TemporaryHome()
        _ = try Binary.run(["check"], home: home)
        let store = home.defaultStore
        let commandLines: [[String]] = [
            ["snapshot"],
            ["snapshot", "--db", store, "--size", "80x24", "--select", "10000003"],
            ["snapshot", "--db=\(store)", "--size=100x30", "--screen=restores", "--role", "support", "--as", "mei"],
            ["snapshot", "--db", store, "--filter", "王", "--no-color", "--readonly"],
            ["snapshot", "--db", store, "--theme", "light", "--screen", "queue", "--migrate"],
            ["snapshot", "--db", store, "--size", "huge"],
            ["snapshot", "--db", store, "--role", "boss"],
            ["snapshot", "--db", store, "--select", "ghost"],
            ["snapshot", "--db", store, "--screen"],
            ["snapshot", "--db", store, "--bogus"],
            ["snapshot", "--db", store, "-h"],
        ]
        for arguments in commandLines {
            let fast = try Binary.run(arguments, home: home)
            let full = try Binary.run(arguments, home: home, environment: ["STOREDESK_FULL_PARSE": "1"])
            #expect(fast.status == full.status, "\(arguments)")
            #expect(fast.stdout == full.stdout, "\(arguments)")
            #expect(fast.stderr == full.stderr, "\(arguments)")
        }
    }

    /// `find` with only its own options skips ArgumentParser too; every command line must print the same
    /// results, error and exit code either way.
    @Test func findFastPathMatchesTheFullParser() throws {
        let home = TemporaryHome()
        _ = try Binary.run(["check"], home: home)
        let store = home.defaultStore
        let commandLines: [[String]] = [
            ["find", "10000003"],
            ["find", "2611120001", "--db", store],
            ["find", "--db=\(store)", "G2026", "--json", "--limit", "2"],
            ["find", "剑客", "--db", store, "--limit=1", "--migrate"],
            ["find", " 13800000000 ", "--db", store],
            ["find", "nothing-like-this", "--db", store],
            ["find", "   ", "--db", store],
            ["find", "10000003", "--db", store, "--limit", "0"],
            ["find", "10000003", "--db", store, "--limit", "many"],
            ["find", "10000003", "--db", store, "--json=yes"],
            ["find", "10000003", "20000000", "--db", store],
            ["find", "--db", store],
            ["find", "10000003", "--db"],
            ["find", "10000003", "--bogus"],
            ["find", "-h"],
            ["find", "10000003", "--db", home.path("missing.sqlite")],
        ]
        for arguments in commandLines {
            let fast = try Binary.run(arguments, home: home)
            let full = try Binary.run(arguments, home: home, environment: ["STOREDESK_FULL_PARSE": "1"])
            #expect(fast.status == full.status, "\(arguments)")
            #expect(fast.stdout == full.stdout, "\(arguments)")
            #expect(fast.stderr == full.stderr, "\(arguments)")
        }
    }

    @Test func themesListAndCheck() throws {
        let home = TemporaryHome()
        let list = try Binary.run(["themes", "list"], home: home)
        for name in ["dark", "light", "high-contrast", "colorblind", "mono"] { #expect(list.stdout.contains(name)) }
        #expect(try Binary.run(["themes", "check"], home: home).status == 0)
        let bad = home.path("bad.toml")
        try "name = \"bad\"\n[roles\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let result = try Binary.run(["themes", "check", bad], home: home)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("storedesk: \(bad):2:"))
    }

    @Test func theConsoleRefusesToStartWithoutATerminal() throws {
        let home = TemporaryHome()
        let result = try Binary.run([], home: home)
        #expect(result.status != 0)
        #expect(result.stderr.contains("the console needs a terminal"))
    }
}
