import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskUI

/// A terminal whose input already holds `events` (a paste), read by the console's real loop.
final class WaitingInputDevice: ConsoleDevice {
    let size: Size
    var events: [DeviceEvent]
    private(set) var frames = 0

    init(size: Size, events: [DeviceEvent]) {
        self.size = size
        self.events = events
    }

    func present(_ canvas: Canvas, theme: Theme) { frames += 1 }

    func nextEvent(timeoutMilliseconds: Int) -> DeviceEvent? { events.isEmpty ? nil : events.removeFirst() }
}

/// The Users `/` filter reads the list once for keys that were waiting together (a paste), not once a key.
@Suite(.serialized) struct FilterPasteTests {
    static let size = Size(width: 80, height: 24)

    /// Runs the console's loop over `events` waiting in the input; returns the reads they cost beyond the
    /// loop's own (its first page, count and tick), measured against `/` alone.
    static func readsOfPaste(_ events: [DeviceEvent]) throws -> (reads: Int, harness: ConsoleHarness) {
        func run(_ events: [DeviceEvent]) throws -> ConsoleHarness {
            let harness = try ConsoleHarness(size: size)
            let device = WaitingInputDevice(size: size, events: events)
            let wall = Instant(Date())
            var turns = 0
            harness.runtime.run(
                device: device, refreshInterval: 3600, clock: ConsoleClock(storeClock: harness.state.clock, wall: wall),
                shouldStop: {
                    turns += 1
                    return device.events.isEmpty && turns > 1 || turns > 50
                })
            return harness
        }
        let slash: [DeviceEvent] = [.key(.character("/"))]
        let baseline = try run(slash).runtime.reads
        let pasted = try run(slash + events)
        return (pasted.runtime.reads - baseline, pasted)
    }

    @Test("a 200-character paste into the Users filter reads the list a small constant number of times, and filters as typing it would")
    func pasteReadsOnce() throws {
        let text = String(String(repeating: "zhang wei 13800 ", count: 13).prefix(200))
        #expect(text.count == 200)
        let (reads, pasted) = try Self.readsOfPaste(text.map { .key(.character($0)) })
        #expect(reads <= 4, "a paste of 200 characters cost \(reads) reads")
        #expect(pasted.state.isFilteringUsers(text))
        // The same keys typed one at a time (each its own turn) leave the same list.
        let typed = try ConsoleHarness(size: Self.size)
        typed.press(.character("/"))
        typed.type(text)
        #expect(typed.runtime.reads > pasted.runtime.reads + 150, "typed one at a time, each key reads")
        #expect(pasted.state.screenState(UsersScreen.self).rows == typed.state.screenState(UsersScreen.self).rows)
    }

    @Test("edits waiting together (characters, backspace, Ctrl-U) leave the text and list typing them would, for one read; other keys still act")
    func editsThenKeys() throws {
        let keys: [Key] = Array("qqqq").map { .character($0) } + [.ctrl("u")] + Array("wanx").map { .character($0) } + [.backspace]
        let (reads, pasted) = try Self.readsOfPaste(keys.map { .key($0) } + [.key(.enter), .key(.character("j"))])
        #expect(reads <= 6, "\(reads) reads")
        let typed = try ConsoleHarness(size: Self.size)
        typed.press(.character("/"))
        for key in keys { typed.press(key) }
        typed.press(.enter, .character("j"))
        #expect(typed.state.screenState(UsersScreen.self).filter == "wan")
        #expect(pasted.state.screenState(UsersScreen.self).filter == "wan")
        #expect(pasted.state.screenState(UsersScreen.self).selectedRow?.user.id == typed.state.screenState(UsersScreen.self).selectedRow?.user.id)
        #expect(pasted.state.screenState(UsersScreen.self).rows == typed.state.screenState(UsersScreen.self).rows)
    }
}

extension AppState {
    /// Whether the console is on Users with the `/` filter open holding `text`.
    func isFilteringUsers(_ text: String) -> Bool {
        guard case .filter = mode, screen == .users else { return false }
        return screenState(UsersScreen.self).filter == text
    }
}
