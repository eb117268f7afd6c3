import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
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
        // Typed one at a time, each key reads until the text matches nothing ("zhang wei 1…"); after that a
        // key reads nothing (`typingPastTheLastMatchReadsNothing`).
        #expect(typed.runtime.reads > pasted.runtime.reads, "typed one at a time, each key reads")
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

    /// A text typed on past the last match reads nothing more (`bench filter --texts`
    /// of 1,000 characters took 4.5 s, 4,000 characters 41 s, a read of the whole text's trigrams a key):
    /// the filter is one substring, so text holding one that matched nothing matches nothing either. A
    /// text that could match again (shorter, a phone's last four, after the store changed) reads.
    @Test func typingPastTheLastMatchReadsNothing() throws {
        let console = try ConsoleHarness(size: Self.size)
        console.press(.character("/"))
        console.type("zzqx")
        let users = { console.state.screenState(UsersScreen.self) }
        // "zzq" already matched nothing: "zzqx" was not read.
        #expect(users().rows.isEmpty && users().matchedNothing?.text == "zzq")
        var reads = console.runtime.reads
        console.type(String(repeating: "y", count: 300))
        #expect(console.runtime.reads == reads, "typed on past the last match: \(console.runtime.reads - reads) reads")
        #expect(console.state.isFilteringUsers("zzqx" + String(repeating: "y", count: 300)))
        #expect(console.text.contains("0 of 0") || console.text.contains("· 0"), "\(console.text)")
        // Typed at the start too; then a text shorter than the one that matched nothing may match again, and is read.
        console.press(.home)
        console.type("w")
        #expect(console.runtime.reads == reads)
        console.press(.end, .ctrl("u"))
        console.type("zzq")
        #expect(console.state.isFilteringUsers("zzq"))
        #expect(console.runtime.reads > reads)
        // The store changed: what matched nothing may match now, so it is read again, and typed on from.
        try console.outside().write { db in
            try db.execute(sql: """
                INSERT INTO user (id, name, friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at)
                SELECT '19999999', 'zzqy.new', friendly_name, id_card, phone, site, adult_type, fcm, authoriz_state, safety, client_id, created_at
                FROM user WHERE id = '10000001'
                """)
        }
        reads = console.runtime.reads
        console.runtime.dispatch(.storeChanged)
        #expect(console.runtime.reads > reads)
        #expect(users().rows.map(\.user.id) == ["19999999"] && users().matchedNothing == nil)
        reads = console.runtime.reads
        console.type("y")
        #expect(console.runtime.reads > reads)
        #expect(users().rows.map(\.user.id) == ["19999999"])
        // Four digits look at phones too; a short text was compared by the table scan: each reads.
        var screen = UsersScreen()
        screen.filter = "999"
        screen.matchedNothing = UserSearch(text: "999")
        #expect(!screen.setFilter("9999", pageSize: 20).isEmpty)
        screen.matchedNothing = UserSearch(text: "999")
        #expect(screen.setFilter("99999", pageSize: 20).isEmpty)
        #expect(!UserSearch(text: "abc").matchesNothing(whenNothingMatched: UserSearch(text: "ab")))
        #expect(UserSearch(text: "xabcx").matchesNothing(whenNothingMatched: UserSearch(text: "abcx")))
        #expect(!UserSearch(text: "abd").matchesNothing(whenNothingMatched: UserSearch(text: "abc")))
    }
}

extension AppState {
    /// Whether the console is on Users with the `/` filter open holding `text`.
    func isFilteringUsers(_ text: String) -> Bool {
        guard case .filter = mode, screen == .users else { return false }
        return screenState(UsersScreen.self).filter == text
    }
}
