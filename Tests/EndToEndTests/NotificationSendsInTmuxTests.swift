import Foundation
import Testing

/// The console shows notifications sent: the Subscriptions list's title carries the send queue, and the
/// Users profile lists the player's notifications with their sends, a failing one in the error role. Real
/// sends: `serve` on the demo store sends app 1001's notifications to a port nothing listens on.
@Suite(.serialized) struct NotificationSendsInTmuxTests {
    static func sql(_ path: String, _ query: String) throws -> String { try RestoreCommandTests.sql(path, query) }

    /// The demo store with every notification of app 1001 sent once to a refused port (pending, SOCKET_ISSUE).
    static func storeWithFailedSends(_ home: TemporaryHome) throws -> String {
        try home.withDemoStore()
        let store = home.defaultStore
        let set = try Binary.run(["apps", "set", "1001", "--notification-url", "http://127.0.0.1:9/apple", "--role", "developer", "--db", store], home: home)
        try #require(set.status == 0, "\(set.stderr)")
        // As if the URL had been set before the demo's notifications were logged.
        _ = try shell("sqlite3 \(store) \"UPDATE app SET notification_after = 0 WHERE id = '1001'\"")
        let serve = try NotificationClockTests.Serve(store: store, home: home)
        defer { serve.stop() }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, (Int(try sql(store, "SELECT count(*) FROM notification_attempt")) ?? 0) < 5 { usleep(100_000) }
        #expect(serve.stop() == 0)
        return store
    }

    @Test(arguments: [(80, 24), (120, 40), (200, 60)]) func theSendQueueAndAPlayersSendsAreShown(_ size: (Int, Int)) throws {
        let home = TemporaryHome()
        let store = try Self.storeWithFailedSends(home)
        let pending = try Self.sql(store, "SELECT count(*) FROM notification_delivery WHERE state = 'pending' AND attempts > 0")
        try #require((Int(pending) ?? 0) >= 5, "\(pending)")
        let tmux = try ConsoleInTmuxTests.Tmux.console(home: home, width: size.0, height: size.1, arguments: ["--role", "support"])
        try tmux.waitFor("Profile")
        // Subscriptions (5): the queue in the list's title (cut with an ellipsis where the pane is narrow).
        try tmux.keys("5")
        let subs = try tmux.waitFor("· sends")
        #expect(size.0 < 120 || subs.contains("sends \(pending) pending"), "\(subs)")
        // Users (1): the player with notifications, filtered; the profile lists their sends.
        try tmux.keys("1")
        try tmux.waitFor("Users")
        try tmux.keys("/")
        try tmux.literal("10000005")
        try tmux.keys("Enter")
        try tmux.waitFor("1 of 1")
        // The profile is longer than the pane below 200x60: the detail pane scrolls (tab, then pages down).
        try tmux.waitFor("Subscriptions (1)")
        if size.1 < 60 { try tmux.keys("Tab", "NPage", "NPage", "NPage", "NPage") }
        let screen = try tmux.waitFor("Notifications sent")
        #expect(screen.contains("SOCKET_ISSUE"), "\(screen)")
        #expect(try tmux.quit(home: home).hasPrefix("EXIT=0"))
    }
}
