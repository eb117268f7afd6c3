import Testing
@testable import StoreDeskUI

/// The header names the store a console is on: a file by its name, a team store by database and host, and
/// never a password, whatever the address carries.
@Suite struct StoreLabelTests {
    @Test(arguments: [
        ("/home/li/.local/share/storedesk/storedesk.sqlite", "storedesk.sqlite"),
        ("relative.sqlite", "relative.sqlite"),
        ("postgres://support@db.example.com/team", "team@db.example.com"),
        ("postgres://support@10.0.0.2:55432/team?sslmode=require", "team@10.0.0.2:55432"),
        ("postgresql://support:secret@[::1]:6000/team", "team@[::1]:6000"),
    ])
    func aStoreIsNamedByWhatTellsItApart(_ location: String, _ label: String) {
        #expect(AppState.storeLabel(location) == label)
        #expect(!AppState.storeLabel(location).contains("secret"))
    }
}
