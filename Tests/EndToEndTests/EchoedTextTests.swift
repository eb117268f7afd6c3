import Foundation
import Testing

/// A value a command repeats in its message is cut: a 100,000-character search text
/// was echoed whole on stderr. Every message names a value it was given through `EchoedText`: its first 80
/// characters, `…` and its length, on one line.
@Suite(.serialized) struct EchoedTextTests {
    static let long = String(repeating: "剑", count: 10) + String(repeating: "a", count: 99_990)
    static let cut = String(Self.long.prefix(80)) + "… (100,000 characters)"

    @Test func aLongTextIsCutInEveryMessageThatRepeatsIt() throws {
        let home = TemporaryHome()
        let db = try HardeningTests.demoStore(home)
        let cases: [(arguments: [String], failing: Bool)] = [
            // `find`'s note when nothing matches (exit 0), and `user search`'s.
            (["find", Self.long, "--db", db], false),
            (["user", "search", Self.long, "--db", db], false),
            // A store's refusal naming the id, and ArgumentParser's of a value.
            (["user", "show", Self.long, "--db", db], true),
            (["find", "10000001", "--limit", Self.long, "--db", db], true),
        ]
        for (arguments, failing) in cases {
            let what = arguments.prefix(2).joined(separator: " ")
            let result = try Binary.run(arguments, home: home)
            if failing {
                HardeningTests.expectOneLineError(result, what)
            } else {
                #expect(result.status == 0, "\(what): \(result.stderr.prefix(300))")
            }
            #expect(result.stderr.contains(Self.cut), "\(what): \(result.stderr.prefix(300))")
            #expect(result.stderr.utf8.count < 400, "\(what): \(result.stderr.utf8.count) bytes on stderr")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(what)")
        }
        // A short value is still said whole.
        let short = try Binary.run(["user", "show", "no-such-player", "--db", db], home: home)
        #expect(short.stderr == "storedesk: no user with id 'no-such-player'\n", "\(short.stderr)")
    }
}
