import Foundation
import Testing

/// `storedesk login entries` and `storedesk login onetap` through the real binary, on a copy of the demo
/// store.
@Suite struct LoginCommandTests {
    typealias CLI = RestoreCommandTests
    static let developer = ["--role", "developer", "--as", "zhao.dev"]

    /// One `login onetap` step as a developer on the store at `db`.
    static func onetap(_ arguments: [String], db: String, home: TemporaryHome) throws -> Binary.Result {
        try CLI.run(["login", "onetap"] + arguments + ["--db", db] + developer, home: home)
    }

    @Test func checkFailsOnAViolationAndListsEachInJSON() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        let result = try CLI.run(["login", "entries", "check", "--app", "1003", "--json", "--db", db], home: home)
        #expect(result.status == 1)
        let json = try #require(try CLI.json(result) as? [String: Any])
        #expect(json["valid"] as? Bool == false)
        let violations = try #require(json["violations"] as? [[String: Any]])
        #expect(violations.compactMap { $0["code"] as? String } == ["taptap_with_xd", "apple_required"])
        #expect(violations.allSatisfy { ($0["message"] as? String)?.isEmpty == false })
    }

    @Test func checkPassesAValidListAndReportsWarnings() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        let saved = try CLI.run(["login", "entries", "check", "--app", "1001", "--db", db], home: home)
        #expect(saved.status == 0)
        #expect(saved.stdout.contains("valid"))
        let android = try CLI.run(
            ["login", "entries", "check", "--app", "1001", "--entries", "wechat,apple", "--platform", "android", "--json", "--db", db],
            home: home)
        #expect(android.status == 0)
        let json = try #require(try CLI.json(android) as? [String: Any])
        #expect((json["warnings"] as? [[String: Any]])?.first?["code"] as? String == "apple_web_flow")
        let empty = try CLI.run(["login", "entries", "check", "--app", "1001", "--entries", "", "--db", db], home: home)
        #expect(empty.status == 0)
        #expect(empty.stdout.contains("empty_list"))
    }

    @Test func showDrawsThePanelAndTheChecklist() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        let result = try CLI.run(["login", "entries", "show", "--app", "1002", "--db", db], home: home)
        #expect(result.status == 0)
        #expect(result.stdout.contains("sdk_default"))
        #expect(result.stdout.contains("[ WeChat 微信登录 ]"))
        #expect(result.stdout.contains("tencent<QQ AppID>"))
        #expect(result.stdout.contains("XD-1002"))
    }

    @Test func aDeveloperSetsAListAndItsHistoryShows() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        let set = try CLI.run(["login", "entries", "set", "--app", "1002", "--entries", "APPLE_LOGIN,wechat,guest", "--db", db] + Self.developer, home: home)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("(SDK default) → APPLE_LOGIN,WX_LOGIN,GUEST_LOGIN"))
        let show = try CLI.run(["login", "entries", "show", "--app", "1002", "--json", "--db", db], home: home)
        let json = try #require(try CLI.json(show) as? [String: Any])
        #expect(json["entries"] as? [String] == ["APPLE_LOGIN", "WX_LOGIN", "GUEST_LOGIN"])
        let history = try #require(json["history"] as? [[String: Any]])
        #expect(history.first?["actor"] as? String == "zhao.dev")
        #expect(history.first?["surface"] as? String == "cli")
        let reset = try CLI.run(["login", "entries", "set", "--app", "1002", "--default", "--db", db] + Self.developer, home: home)
        #expect(reset.stdout.contains("→ (SDK default)"))
        #expect(try CLI.sql(db, "SELECT count(*) FROM audit_log WHERE action = 'login.entries.set' AND subject = 'app 1002'") == "2")
    }

    @Test(arguments: [
        ["login", "entries", "set", "--app", "1001", "--entries", "guest"],
        ["login", "entries", "set", "--app", "1001", "--entries", "guest", "--role", "support"],
        ["login", "entries", "set", "--app", "1001", "--entries", "guest", "--role", "developer", "--readonly"],
        ["login", "entries", "set", "--app", "1001", "--entries", "apple,facebook", "--role", "developer"],
        ["login", "entries", "set", "--app", "9999", "--entries", "guest", "--role", "developer"],
        ["login", "entries", "set", "--app", "1001", "--entries", "taptap,xd", "--role", "developer"],
        ["login", "entries", "set", "--app", "1001", "--role", "developer"],
        ["login", "entries", "check", "--app", "1001", "--platform", "windows"],
        ["login", "entries", "check", "--app", "1001", "--legacy", "hide-apple"],
        ["login", "onetap", "prefetch"],
        ["login", "onetap", "prefetch", "--role", "developer"],
        ["login", "onetap", "settings", "--network", "5g", "--role", "developer"],
        ["login", "onetap", "settings", "--phone", "123", "--role", "developer"],
        ["login", "onetap", "advance", "0", "--role", "developer"],
    ])
    func badInputIsOneLineAndLeavesTheStoreAsItWas(arguments: [String]) throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        let before = FileManager.default.contents(atPath: db)
        let result = try CLI.run(arguments + ["--db", db], home: home)
        #expect(result.status != 0)
        #expect(result.stdout.isEmpty || arguments.contains("prefetch"))
        #expect(result.stderr.isEmpty || result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: db) == before)
    }

    @Test func operatorsAreToldOnlyADeveloperMayEdit() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        let result = try CLI.run(["login", "entries", "set", "--app", "1001", "--entries", "guest", "--role", "operator", "--db", db], home: home)
        #expect(result.stderr == "storedesk: only a developer may edit the login configuration (tester (operator))\n")
    }

    @Test func oneTapStepsContinueOneFlowAcrossCommands() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        func onetap(_ arguments: [String]) throws -> Binary.Result { try Self.onetap(arguments, db: db, home: home) }
        let key = "8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41"
        // On the command line the key is refused without being repeated; it is read from stdin or a file.
        let refused = try onetap(["register", "--app-id", "300011862498", "--app-key", key])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--app-key-file") && !refused.stderr.contains(key))
        let register = try Binary.run(
            ["login", "onetap", "register", "--app-id", "300011862498", "--app-key-file", "-", "--db", db] + Self.developer,
            home: home, stdin: key + "\n")
        #expect(register.status == 0)
        #expect(register.stdout.contains("8F3A****41"))
        #expect(!register.stdout.contains("8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41"))
        #expect(try CLI.sql(db, "SELECT detail FROM audit_log WHERE action = 'login.onetap.register'") == "appKey 8F3A****41")
        let prefetch = try CLI.json(try onetap(["prefetch", "--json"])) as? [String: Any]
        #expect(prefetch?["masked_number"] as? String == "138****0000")
        // A token exchanged within two minutes gives the number once.
        let first = try #require(try CLI.json(try onetap(["authorize", "--json"])) as? [String: Any])
        let token = try #require(first["token"] as? String)
        #expect(first["open_id"] is String)
        #expect(try onetap(["advance", "119"]).status == 0)
        let exchanged = try onetap(["exchange", token, "--json"])
        #expect(exchanged.status == 0)
        #expect((try CLI.json(exchanged) as? [String: Any])?["masked_number"] as? String == "138****0000")
        #expect(!exchanged.stdout.contains("13800000000"))
        let again = try onetap(["exchange", token, "--json"])
        #expect(again.status == 1)
        #expect((try CLI.json(again) as? [String: Any])?["code"] as? String == "104201")
        // A token left 121 s has expired.
        let second = try #require(try CLI.json(try onetap(["authorize", "--json"])) as? [String: Any])
        #expect(try onetap(["advance", "121"]).status == 0)
        let expired = try onetap(["exchange", (second["token"] as? String) ?? "", "--json"])
        #expect((try CLI.json(expired) as? [String: Any])?["code"] as? String == "104201")
        // Implicit login: no openId.
        let implicit = try #require(try CLI.json(try onetap(["authorize", "--implicit", "--json"])) as? [String: Any])
        #expect(implicit["code"] as? String == "103000")
        #expect(implicit["open_id"] is NSNull)
    }

    @Test func thirtyUnusedTokensThenTheRateLimit() throws {
        let home = TemporaryHome()
        let db = try CLI.demoStore(home)
        func onetap(_ arguments: [String]) throws -> Binary.Result { try Self.onetap(arguments, db: db, home: home) }
        let keyFile = home.path("onetap.key")
        try Data("8F3A9C2E7B1D4F6A0C5E9B3D7F2A8C41\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        #expect(try onetap(["register", "--app-id", "300011862498", "--app-key-file", keyFile]).status == 0)
        for _ in 0..<30 { #expect(try onetap(["authorize"]).status == 0) }
        let limited = try onetap(["authorize", "--json"])
        #expect(limited.status == 1)
        #expect((try CLI.json(limited) as? [String: Any])?["code"] as? String == "103911")
        _ = try onetap(["advance", "600"])
        #expect(try onetap(["authorize"]).status == 0)
    }

    @Test func everyResultCodeIsListedWithItsMeaning() throws {
        let home = TemporaryHome()
        let result = try CLI.run(["login", "onetap", "codes", "--json"], home: home)
        let rows = try #require(try CLI.json(result) as? [[String: Any]])
        #expect(rows.count >= 20)
        #expect(rows.contains { $0["code"] as? String == "103911" && ($0["meaning"] as? String)?.contains("30") == true })
    }
}
