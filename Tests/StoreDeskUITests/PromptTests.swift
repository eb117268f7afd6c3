import Foundation
import GRDB
import StoreDeskCore
import Testing
@testable import StoreDeskSQLite
@testable import StoreDeskUI

/// A typed line edited as readline edits one.
@Suite struct LineEditorTests {
    func typed(_ start: String = "", _ keys: [Key]) -> LineEditor {
        var line = LineEditor(prefilled: start)
        for key in keys { line.edit(key) }
        return line
    }

    func chars(_ text: String) -> [Key] { text.map { .character($0) } }

    @Test func theFirstCharacterTypedReplacesAPrefilledValue() {
        #expect(typed("s14", chars("s9")).text == "s9")
        #expect(typed("10000003", chars("10000004")).text == "10000004")
        // A key that moves or deletes keeps the value for editing.
        #expect(typed("s14", [.backspace] + chars("5")).text == "s15")
        #expect(typed("s14", [.home] + chars("x")).text == "xs14")
        #expect(typed("s14", [.left, .left] + chars("9")).text == "s914")
        #expect(LineEditor(prefilled: "s14").isPrefilled && !typed("s14", [.end]).isPrefilled)
    }

    @Test func cursorKeysMoveAndDeleteAsReadline() {
        // ←/→, home/end, ctrl-a/e, backspace and delete at the cursor.
        #expect(typed("", chars("abd") + [.left] + chars("c")).text == "abcd")
        #expect(typed("", chars("bc") + [.ctrl("a")] + chars("a") + [.ctrl("e")] + chars("d")).text == "abcd")
        #expect(typed("", chars("abcd") + [.home, .delete]).text == "bcd")
        #expect(typed("", chars("abcd") + [.left, .backspace]).text == "abd")
        #expect(typed("", chars("ab") + [.right, .right, .right]).cursor == 2)
        #expect(typed("", chars("ab") + [.left, .left, .left, .backspace]).text == "ab")
        // ctrl-u / ctrl-k: to the start / to the end; ctrl-w: the word before the cursor.
        #expect(typed("", chars("refunded by Apple") + [.left, .left, .ctrl("u")]).text == "le")
        #expect(typed("", chars("refunded by Apple") + [.home, .right, .ctrl("k")]).text == "r")
        #expect(typed("", chars("refunded by Apple  ") + [.ctrl("w")]).text == "refunded by ")
        #expect(typed("", chars("refunded by Apple") + [.ctrl("w"), .ctrl("w")]).text == "refunded ")
        // What is drawn either side of the cursor.
        let line = typed("", chars("abcd") + [.left])
        #expect(line.beforeCursor == "abc" && line.afterCursor == "d")
        // A key a line does not edit with is not taken.
        var other = LineEditor()
        #expect(!other.edit(.pageDown) && !other.edit(.function(2)))
    }
}

/// Prompts, the message log, the `:` line and `?` help, on a console over the demo store.
@Suite struct PromptTests {
    let size = Size(width: 120, height: 40)

    func restores(_ console: ConsoleHarness) -> RestoresScreen { console.state.screenState(RestoresScreen.self) }

    func prompt(_ console: ConsoleHarness, sourceLocation: SourceLocation = #_sourceLocation) -> Prompt? {
        guard case .prompt(let prompt) = console.state.mode else {
            Issue.record("no prompt open: \(console.state.mode)", sourceLocation: sourceLocation)
            return nil
        }
        return prompt
    }

    func declined(_ console: ConsoleHarness) throws -> [String] {
        try console.outside().read { try String.fetchAll($0, sql: "SELECT reason FROM restore_request WHERE status = 'declined' ORDER BY transaction_id") }
    }

    /// The issue's case: Enter on an empty reason, then "refunded by Apple". The prompt stays open, no
    /// letter reaches the screen (`d` would reopen, `s` change the status, `r`… nothing else happens),
    /// and the reason saved is exactly what was typed.
    @Test func aRefusedReasonKeepsThePromptAndNothingLeaksToTheScreen() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        let before = try declined(console)
        console.press(.character("d"), .enter)
        #expect(prompt(console)?.refusal == "a decline needs a reason the player can be told")
        #expect(console.text.contains("reason to decline 2000000100000093: ▏  ✗ a decline needs a reason the player can be told"))
        #expect(console.text.contains("enter sends · esc cancels · ←/→ home/end move"))
        console.type("refunded by Apple")
        #expect(prompt(console)?.text == "refunded by Apple")
        #expect(restores(console).status == .open && restores(console).selectedRow?.request.transactionId == "2000000100000093")
        console.press(.enter)
        #expect(prompt(console)?.label == "decline 2000000100000093 with the reason “refunded by Apple”? y/n")
        #expect(console.text.contains("decline 2000000100000093 with the reason “refunded by Apple”? y/n ▏"))
        #expect(console.text.contains("y yes · n no · esc cancels"))
        console.press(.character("y"))
        #expect(console.state.mode == .normal)
        let after = try declined(console)
        #expect(after.count == before.count + 1 && after.contains("refunded by Apple"))
        #expect(console.state.status?.text == "declined 2000000100000093: refunded by Apple")
    }

    /// The refusal belongs to the answer it refused: it goes as soon as the answer is edited (a key that
    /// changes nothing, a cursor move, keeps it), and stays in the message log.
    @Test func aRefusalClearsOnceTheAnswerIsEdited() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24), role: .support)
        console.show("restores")
        let reason = "a decline needs a reason the player can be told"
        console.press(.character("d"), .enter)
        #expect(prompt(console)?.refusal == reason)
        // Keys that leave the answer as it was keep the reason beside it.
        console.press(.left, .backspace, .home, .ctrl("k"))
        #expect(prompt(console)?.refusal == reason)
        #expect(console.text.contains("✗ a decline needs"))
        console.type("r")
        #expect(prompt(console)?.refusal == nil)
        #expect(!console.text.contains("✗"), "\(console.text)")
        #expect(console.text.contains("reason to decline 2000000100000093: r▏"))
        #expect(console.state.messages.contains { $0.message.text == reason }, "still in the message log")
        // Refused again, then cleared by deleting back to something else; and by a recalled answer.
        console.press(.backspace, .enter)
        #expect(prompt(console)?.refusal == reason)
        console.type(" ")
        #expect(prompt(console)?.refusal == nil)
        console.press(.ctrl("u"), .enter)
        #expect(prompt(console)?.refusal == reason)
        console.press(.escape)
        console.press(.character("d"))
        console.type("duplicate order")
        console.press(.enter, .character("n"))
        console.press(.character("d"), .enter)
        #expect(prompt(console)?.refusal == reason)
        console.press(.up)
        #expect(prompt(console)?.text == "duplicate order" && prompt(console)?.refusal == nil)
    }

    @Test func aYesNoPromptAnswersOnTheKeyAndRefusesEnter() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.press(.character("d"))
        console.type("duplicate order")
        console.press(.enter)
        // Enter alone is not an answer; other letters do nothing (and reach nothing).
        console.press(.enter, .character("s"), .character("j"))
        #expect(prompt(console)?.refusal == "press y or n (esc cancels)")
        #expect(restores(console).status == .open && restores(console).list.selected == 0)
        console.press(.character("n"))
        #expect(console.state.mode == .normal)
        #expect(console.state.status?.text == "decline: cancelled, nothing was written")
        #expect(try declined(console).count == 1)  // the demo's own declined prompt only
    }

    @Test func aPrefilledSidIsReplacedByWhatIsTyped() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.press(.character("j"), .character("j"), .character("c"), .character("j"), .enter)
        #expect(prompt(console)?.text == "s2")
        #expect(console.text.contains("Sid for 10000035 s2/r10000035-2: s2▏"))
        console.type("s5")
        #expect(prompt(console)?.text == "s5")
        console.press(.backspace)
        console.type("9")
        #expect(prompt(console)?.text == "s9")
        #expect(console.text.contains("enter sends · esc cancels"))
    }

    @Test func eachPromptKeepsItsAnswersForUpAndDown() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.press(.character("d"))
        console.type("first reason")
        console.press(.enter, .character("n"))
        console.press(.character("d"))
        console.type("second reason")
        console.press(.enter, .character("n"))
        console.press(.character("d"))
        console.type("draft")
        console.press(.up)
        #expect(prompt(console)?.text == "second reason")
        console.press(.up)
        #expect(prompt(console)?.text == "first reason")
        console.press(.up)
        #expect(prompt(console)?.text == "first reason")
        console.press(.down)
        #expect(prompt(console)?.text == "second reason")
        console.press(.down)
        #expect(prompt(console)?.text == "draft")
        // A recalled answer is edited, not replaced: it was not a suggestion.
        console.press(.up)
        console.type("!")
        #expect(prompt(console)?.text == "second reason!")
        // Another prompt has a history of its own.
        console.press(.escape, .character("c"), .enter, .up)
        #expect(prompt(console)?.label.hasPrefix("Sid for") == true && prompt(console)?.text == "s1")
    }

    @Test func escapeCancelsAPromptAndSaysSo() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.press(.character("d"))
        console.type("typed then dropped")
        console.press(.escape)
        #expect(console.state.mode == .normal)
        #expect(console.state.status?.text == "reason to decline 2000000100000093: cancelled, nothing was sent")
        #expect(try declined(console).count == 1)
    }

    @Test func theOneTapAppKeyIsMaskedAsTyped() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        console.show("onetap")
        console.press(.character("r"))
        #expect(prompt(console)?.text == "300011862498" && prompt(console)?.kind == .text)
        console.press(.enter)
        #expect(prompt(console)?.kind == .secret && prompt(console)?.label == "register: appKey for 300011862498")
        console.type("8F3A9C2E7B1D4F6A")
        let text = console.text
        #expect(!text.contains("8F3A9C2E"))
        #expect(text.contains("register: appKey for 300011862498: ••••••••••••••••▏"))
        #expect(text.contains("hidden as typed"))
        console.press(.enter)
        #expect(console.state.mode == .normal)
        #expect(try console.database.oneTapLogin().registration?.appKey == "8F3A9C2E7B1D4F6A")
        // A secret is never kept for ↑.
        console.press(.character("r"), .enter, .up)
        #expect(prompt(console)?.text == "")
    }

    @Test func theDemoPromptReopensWithTheStoresRefusal() throws {
        let console = try ConsoleHarness(size: size, role: .developer)
        console.show("subscriptions")
        console.press(.character("n"))
        console.press(.ctrl("u"))
        console.type("20000001")
        console.press(.enter)
        let reopened = prompt(console)
        #expect(reopened?.text == "20000001")
        #expect(reopened?.refusal == "demo not started: no user with id '20000001'")
        // The first character typed now edits what was typed: it is no suggestion.
        console.press(.backspace)
        console.type("4")
        #expect(prompt(console)?.text == "20000004")
        console.press(.escape)
        #expect(console.state.screenState(SubscriptionsScreen.self).demo == nil)
    }

    // MARK: - Messages

    @Test func aMessageBelongsToItsActionAndEveryOneIsLogged() throws {
        let console = try ConsoleHarness(size: size)
        console.show("user 20000001")
        let error = try #require(console.state.status)
        #expect(error.kind == .error && error.text.contains("20000001"))
        console.show("user 10000013")
        #expect(console.state.status == nil)
        #expect(console.state.users.selectedRow?.user.id == "10000013")
        // A refusal on one screen does not follow to the next.
        console.show("queue")
        console.press(.character("r"))
        #expect(console.state.status?.text.contains("developer role") == true)
        console.press(.character("]"))
        #expect(console.state.screen == .restores && console.state.status == nil)
        // The log keeps every message, whole, with the console's time.
        let logged = console.state.messages.map(\.message.text)
        #expect(logged.contains(error.text))
        #expect(logged.contains { $0.contains("developer role") })
        #expect(console.state.messages.allSatisfy { $0.at == console.state.clock })
        // The idle status line does not repeat the footer's hints.
        #expect(!console.text.contains("? help · : command"))
    }

    @Test func theMessageLogOpensScrollsAndCloses() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24), role: .support)
        for n in 1...30 { console.show("select nobody-\(n)") }
        console.show("messages")
        guard case .messages(nil) = console.state.mode else {
            Issue.record("expected the message log at its end, got \(console.state.mode)")
            return
        }
        var text = console.text
        #expect(text.contains("Messages (30)"))
        #expect(text.contains("08:00:00  "))
        #expect(text.contains("nobody-30") && !text.contains("nobody-1'"))
        #expect(text.contains("of 30"))
        console.press(.character("g"))
        text = console.text
        #expect(text.contains("nobody-1'") && !text.contains("nobody-30"))
        console.press(.character("j"))
        #expect(console.state.mode == .messages(scroll: 1))
        console.press(.character("G"))
        #expect(console.state.mode == .messages(scroll: nil))
        console.press(.escape)
        #expect(console.state.mode == .normal)
    }

    @Test func aLongMessageTakesTheLinesAboveAndEndsInAnEllipsisWhenCut() throws {
        let console = try ConsoleHarness(size: Size(width: 80, height: 24))
        let long = (1...80).map { "word\($0)" }.joined(separator: " ")
        console.runtime.dispatch(.failed(long))
        var lines = console.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[20].hasPrefix("word1 word2"))
        #expect(lines[23].hasSuffix("…") && lines[23].count <= 80 && !lines[23].contains("word80"))
        #expect(console.state.messages.last?.message.text == long)
        // One that fits on two lines takes two, whole.
        let two = (1...20).map { "word\($0)" }.joined(separator: " ")
        console.runtime.dispatch(.failed(two))
        lines = console.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[22].hasPrefix("word1 ") && lines[23].hasSuffix("word20"))
        #expect(lines[21].hasPrefix("└"))
    }

    // MARK: - Read-only and the header

    @Test func aWriteKeyOnAReadOnlyStoreSaysWhyNothingHappened() throws {
        let console = try ConsoleHarness(size: size, role: .support, readOnly: true)
        console.show("restores")
        console.press(.character("c"))
        #expect(console.state.status?.text == "confirm: the store is open read-only, nothing was changed")
        console.press(.character("d"))
        #expect(console.state.status?.text == "decline: the store is open read-only, nothing was changed")
        #expect(console.state.mode == .normal && restores(console).picking == nil)
    }

    @Test func theHeaderFollowsTheLoginScreensApp() throws {
        let console = try ConsoleHarness(size: size)
        #expect(console.text.contains("星海征途 (1001)"))
        console.show("login")
        console.press(.character("a"))
        let shown = try #require(console.state.screenState(LoginScreen.self).appId)
        #expect(shown != "1001")
        #expect(console.state.app?.id == shown)
        #expect(console.text.split(separator: "\n").first?.contains("(\(shown))") == true)
    }

    // MARK: - The command line

    @Test func tabListsCompletesAndColonKeepsAHistory() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.press(.character(":"), .tab)
        #expect(console.state.commandChoices.contains("messages") && console.state.commandChoices.contains("restores"))
        #expect(console.text.contains("choices · tab completes"))
        console.type("sta")
        #expect(console.state.commandChoices.isEmpty)
        console.press(.tab)
        #expect(console.state.mode == .command(text: "status "))
        console.press(.tab)
        #expect(console.state.commandChoices == ["open", "confirmed", "declined", "all"])
        console.type("d")
        console.press(.tab)
        #expect(console.state.mode == .command(text: "status declined"))
        console.press(.escape)
        // Fault kinds, and the ids on the shown screen.
        console.press(.character(":"))
        console.type("fault net")
        console.press(.tab)
        #expect(console.state.mode == .command(text: "fault networkDrop"))
        console.press(.escape)
        console.show("users")
        console.press(.character(":"))
        console.type("select 1000001")
        console.press(.tab)
        #expect(console.state.commandChoices.contains("10000010") && console.state.commandChoices.contains("10000019"))
        console.press(.escape)
        // ↑/↓ recall earlier lines.
        console.show("select 10000005")
        console.show("restores")
        console.press(.character(":"), .up)
        #expect(console.state.mode == .command(text: "restores"))
        console.press(.up)
        #expect(console.state.mode == .command(text: "select 10000005"))
        console.press(.down, .down)
        #expect(console.state.mode == .command(text: ""))
    }

    // MARK: - Help

    @Test func helpCoversTheBodyWrapsAndListsEveryCommand() throws {
        let console = try ConsoleHarness(size: size, role: .operator)
        console.show("restores")
        console.press(.character("?"))
        let lines = console.text.split(separator: "\n", omittingEmptySubsequences: false)
        // The overlay spans the whole body: nothing of the panes shows beside it.
        for row in 2..<38 {
            let line = lines[row]
            #expect(line.first == "┌" || line.first == "│" || line.first == "└", "row \(row): \(line)")
            #expect(line.last == "┐" || line.last == "│" || line.last == "┘", "row \(row): \(line)")
        }
        console.press(.character("G"))
        let end = console.text
        for verb in ConsoleCommandLine.verbs.suffix(8) {
            #expect(end.contains(ConsoleCommandLine.usage(verb)), "\(verb.name)")
        }
        #expect(end.contains("Typing a line"))
        // Every command is in the lines, with its argument.
        let all = console.state.helpLines.map { $0.map(\.text).joined() }.joined(separator: "\n")
        for verb in ConsoleCommandLine.verbs { #expect(all.contains(ConsoleCommandLine.usage(verb)), "\(verb.name)") }
        #expect(all.contains(":status open|confirmed|declined|all"))
        // A long summary wraps instead of being cut.
        let narrow = try ConsoleHarness(size: Size(width: 60, height: 20))
        narrow.press(.character("?"))
        let wrapped = narrow.state.helpLines.map { $0.map(\.text).joined() }
        #expect(wrapped.allSatisfy { $0.columns <= narrow.state.overlayTextWidth })
        #expect(wrapped.contains { $0.contains("Back out of anything transient") })
        #expect(wrapped.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("command line, detail focus") || $0.contains("detail focus.") })
        console.press(.escape)
        #expect(console.state.mode == .normal)
    }

    @Test func goldenFramesOfTheHelpAndThePromptLine() throws {
        let help = try ConsoleHarness(size: Size(width: 120, height: 40), role: .support)
        help.show("restores")
        help.press(.character("?"))
        try Golden.check(help.frame, named: "help-restores-120x40")

        let refused = try ConsoleHarness(size: Size(width: 80, height: 24), role: .support)
        refused.show("restores")
        refused.press(.character("d"), .enter)
        try Golden.check(refused.frame, named: "restores-decline-refused-80x24")
        refused.type("refunded by Apple")
        refused.press(.enter)
        try Golden.check(refused.frame, named: "restores-decline-confirm-80x24")
    }
}
