import Foundation
import Testing
@testable import StoreDeskUI

/// Golden frames of the restore desk's screens over the demo store.
@Suite struct RestoreDeskGoldenTests {
    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func restoresScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("3"))
        try Golden.check(console.frame, named: "restores-\(size)")
    }

    /// Support picking the account to confirm onto, on the share app's prompt.
    @Test func restoresScreenChoosingAnAccount() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .support)
        console.press(.character("3"), .character("j"), .character("j"), .character("c"), .character("j"))
        try Golden.check(console.frame, named: "restores-choosing-120x40")
    }

    /// The outcome, the callback and the grant of a confirm, in the detail pane.
    @Test func restoresScreenAfterAConfirm() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40), role: .support)
        console.press(.character("3"), .character("c"), .enter, .enter, .enter)
        console.type("y")
        try Golden.check(console.frame, named: "restores-confirmed-120x40")
    }

    @Test(arguments: [Size(width: 80, height: 24), Size(width: 120, height: 40)])
    func auditScreen(size: Size) throws {
        let console = try ConsoleHarness(size: size)
        console.press(.character("4"))
        try Golden.check(console.frame, named: "audit-\(size)")
    }
}
