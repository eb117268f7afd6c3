import Foundation
import Testing
@testable import StoreDeskUI

/// A click selects a row or a tab and focuses a pane; the wheel moves the selection three rows a notch.
@Suite struct MouseTests {
    @Test func aClickSelectsTheRowDrawnThere() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 30))
        let list = console.state.layout[.list]
        // The frame, the column titles, then the rows: the fifth row is four below the first.
        console.runtime.dispatch(.mouse(.click(Point(x: list.x + 3, y: list.y + 2 + 4))))
        #expect(console.state.users.selectedRow?.user.id == "10000005")
        #expect(console.state.users.profile?.user.id == "10000005")
        #expect(console.state.users.list.positionText() == "5 of 40")
        // Below the last row or on the titles: nothing.
        console.runtime.dispatch(.mouse(.click(Point(x: list.x + 3, y: list.y + 1))))
        #expect(console.state.users.selectedRow?.user.id == "10000005")
        // The detail pane takes the focus.
        console.runtime.dispatch(.mouse(.click(Point(x: console.state.layout[.detail].x + 3, y: list.y + 3))))
        #expect(console.state.focus == .detail)
    }

    @Test func theWheelScrollsAndATabClickSwitches() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        let list = console.state.layout[.list]
        console.runtime.dispatch(.mouse(.wheelDown(Point(x: list.x + 3, y: list.y + 4))))
        #expect(console.state.users.list.positionText() == "4 of 40")
        console.runtime.dispatch(.mouse(.wheelDown(Point(x: list.x + 3, y: list.y + 4))))
        console.runtime.dispatch(.mouse(.wheelUp(Point(x: list.x + 3, y: list.y + 4))))
        #expect(console.state.users.list.positionText() == "4 of 40")
        let tabs = console.state.layout[.tabs]
        // " 1 Users  2 Queue …" at 80 columns: find where "Audit" is drawn and click it.
        let bar = console.text.split(separator: "\n", omittingEmptySubsequences: false)[tabs.y]
        let column = try #require(bar.range(of: "Audit")).lowerBound
        let x = bar[..<column].reduce(0) { $0 + TextWidth.columns(of: $1) }
        console.runtime.dispatch(.mouse(.click(Point(x: x, y: tabs.y))))
        #expect(console.state.screen == .audit)
        // Not while a prompt or the command line has the keys.
        console.press(.character(":"))
        console.runtime.dispatch(.mouse(.click(Point(x: 2, y: tabs.y))))
        #expect(console.state.screen == .audit)
    }

    /// Restores and Subscriptions take the mouse as the other lists do, and `y` copies the id a ticket
    /// gives: the prompt's transaction, the subscription's original transaction.
    @Test func restoresAndSubscriptionsTakeClicksTheWheelAndY() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 30), role: .support)
        let list = console.state.layout[.list]
        console.show("restores")
        console.show("status all")
        let prompts = console.state.screenState(RestoresScreen.self).list.rows
        console.runtime.dispatch(.mouse(.click(Point(x: list.x + 3, y: list.y + 2 + 3))))
        let restores = console.state.screenState(RestoresScreen.self)
        #expect(restores.selectedRow?.request.transactionId == prompts[3].request.transactionId)
        #expect(restores.detail?.request.transactionId == prompts[3].request.transactionId)
        #expect(console.text.contains("Restores · all 4 of 5"))
        console.press(.character("y"))
        #expect(console.state.status?.text == "copied \(prompts[3].request.transactionId)")
        console.runtime.dispatch(.mouse(.wheelUp(Point(x: list.x + 3, y: list.y + 4))))
        #expect(console.state.screenState(RestoresScreen.self).selectedRow?.request.transactionId == prompts[0].request.transactionId)

        console.show("subscriptions")
        // The state bar and the column titles, then the rows.
        console.runtime.dispatch(.mouse(.click(Point(x: list.x + 3, y: list.y + 3 + 2))))
        let subscriptions = console.state.screenState(SubscriptionsScreen.self)
        let third = try #require(subscriptions.selectedRow)
        #expect(subscriptions.rows.firstIndex(of: third) == 2)
        #expect(console.text.contains("Subscriptions · 3 of 20"))
        console.press(.character("y"))
        #expect(console.state.status?.text == "copied \(third.subscription.id)")
        console.runtime.dispatch(.mouse(.wheelDown(Point(x: list.x + 3, y: list.y + 5))))
        #expect(console.text.contains("Subscriptions · 6 of 20"))
    }

    @Test func sgrReportsAreDecoded() {
        #expect(MouseEvent.sgr(button: 0, x: 1, y: 1, pressed: true) == .click(Point(x: 0, y: 0)))
        #expect(MouseEvent.sgr(button: 64, x: 3, y: 4, pressed: true) == .wheelUp(Point(x: 2, y: 3)))
        #expect(MouseEvent.sgr(button: 0, x: 0, y: 1, pressed: true) == nil)
        #expect(MouseEvent.sgr(button: 35, x: 3, y: 4, pressed: true) == nil)
    }
}
