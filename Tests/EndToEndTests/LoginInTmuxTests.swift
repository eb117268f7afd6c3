import Foundation
import Testing

/// The Login screen in a real terminal: a developer types a list (checked at each keystroke), moves Apple
/// to the top and saves; the command line then sees the saved list and passes it.
@Suite struct LoginInTmuxTests {
    @Test func aDeveloperEditsAndSavesAListThatCheckThenPasses() throws {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let marker = home.path("after.txt")
        let command = "env \(env) \(Binary.path) --role developer --as zhao.dev --refresh 0.3; echo \"EXIT=$?\" > \(marker).part; mv \(marker).part \(marker); sleep 30"
        let tmux = try ConsoleInTmuxTests.Tmux(width: 120, height: 40, command: command)
        try tmux.waitFor("Profile")
        try tmux.keys(":")
        try tmux.literal("login")
        try tmux.keys("Enter")
        try tmux.waitFor("Login · 1001")
        try tmux.keys("a")
        try tmux.waitFor("Login · 1002 Pocket Garden · unconfigured")
        try tmux.keys("e", "C-u")
        try tmux.literal("wechat,q")
        try tmux.waitFor("'q' is not a login entry")
        try tmux.literal("q")
        try tmux.waitFor("✗ apple_required")
        try tmux.literal(",apple")
        try tmux.waitFor("! apple_near_top")
        try tmux.keys("Enter", "K", "K", "w")
        let screen = try tmux.waitFor("saved 1002: (SDK default) → APPLE_LOGIN,WX_LOGIN,QQ_LOGIN")
        #expect(screen.contains("zhao.dev (developer, console)"))
        #expect(screen.contains("[ Sign in with Apple"))

        let check = try RestoreCommandTests.run(["login", "entries", "check", "--app", "1002"], home: home)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("APPLE_LOGIN,WX_LOGIN,QQ_LOGIN — valid"))

        try tmux.keys("q")
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker) && Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").hasPrefix("EXIT=0"))
    }
}
