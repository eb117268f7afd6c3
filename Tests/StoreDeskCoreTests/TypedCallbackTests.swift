import Foundation
import StoreDeskCore
import Testing

/// `callback sign` signs what PHP's parse_str reads, so the game server and `callback verify` accept every
/// body it signs (before, 21 of 38 bodies with `.`, a space, `[]` or `[` in a key were
/// rejected by both).
@Suite struct TypedCallbackTests {
    static let key = "k3y-0123456789abcdef"

    static func fields(_ pairs: [(String, String)]) -> [TypedCallback.Field] {
        pairs.enumerated().map { TypedCallback.Field(line: $0.offset + 1, name: $0.element.0, value: $0.element.1) }
    }

    /// The keys of the issue's repro: each body now verifies, and PHP's names are what was signed.
    @Test(arguments: ["a.b", "a b", "a[]", "a[", "a[x]", " lead", "x]y", "a[b][c", "a.b[c.d]", "中 文.x"])
    func aKeyPHPRewritesIsSignedAsPHPReadsIt(name: String) throws {
        let callback = try TypedCallback(fields: Self.fields([("order_id", "1"), (name, "v")]), appKey: Self.key)
        let check = CallbackSignature.verify(body: callback.body, appKey: Self.key)
        #expect(check.verdict == .valid && check.warnings.contains(.missingField("payment")), "\(callback.body): \(check.reason)")
        #expect(check.expectedSign == callback.sign)
    }

    @Test func ordinaryFieldsSignAsTheServerCallbackDoes() throws {
        let pairs = [("order_id", "P1"), ("payment", "appstore"), ("user_id", "10000001"), ("ext", "a b&c=d")]
        let typed = try TypedCallback(fields: Self.fields(pairs), appKey: Self.key)
        let server = ServerCallback(fields: pairs.map { ServerCallback.Field($0.0, $0.1) }, appKey: Self.key)
        #expect(typed.body == server.body)
        #expect(typed.sign == server.sign)
    }

    @Test func aSignLineIsSkippedNotSigned() throws {
        let typed = try TypedCallback(fields: Self.fields([("order_id", "1"), ("sign", "forged")]), appKey: Self.key)
        #expect(!typed.body.contains("forged"))
    }

    /// Lines PHP would lose are refused, each with the line and the reason.
    @Test func linesPHPWouldLoseAreRefused() throws {
        let cases: [([(String, String)], Int, String)] = [
            ([("a", "1"), ("[x]", "2")], 2, "no name before its first '['"),
            ([("a", "1"), ("   ", "2")], 2, "empty once PHP drops its leading spaces"),
            ([("sign[]", "1")], 1, "reads the name 'sign[]' as 'sign'"),
            ([(" sign", "1")], 1, "reads the name ' sign' as 'sign'"),
            ([("a.b", "1"), ("a_b", "2")], 2, "same field as line 1 ('a.b')"),
            ([("a", "1"), ("a", "2")], 2, "same field as line 1 ('a')"),
            ([("a[x]", "1"), ("a[x]", "2")], 2, "same field as line 1"),
            ([("_.Host-x", "1")], 1, "__Host- or __Secure-"),
            ([(String(repeating: "a", count: 3) + String(repeating: "[b]", count: 70), "1")], 1, "more than 64 levels"),
        ]
        for (pairs, line, reason) in cases {
            do {
                let signed = try TypedCallback(fields: Self.fields(pairs), appKey: Self.key)
                Issue.record("\(pairs) was signed: \(signed.body)")
            } catch {
                #expect(error.line == line, "\(pairs)")
                #expect(error.description.contains(reason), "\(pairs): \(error)")
            }
        }
        // `a[]` twice appends two values: nothing is lost.
        #expect(throws: Never.self) { try TypedCallback(fields: Self.fields([("a[]", "1"), ("a[]", "2")]), appKey: Self.key) }
    }

    @Test func moreFieldsThanPHPReadsAreRefused() throws {
        let many = (0..<1000).map { ("f\($0)", "v") }
        #expect(throws: TypedCallback.Refusal.self) { try TypedCallback(fields: Self.fields(many), appKey: Self.key) }
        let most = try TypedCallback(fields: Self.fields(Array(many.prefix(999))), appKey: Self.key)
        #expect(CallbackSignature.verify(body: most.body, appKey: Self.key).verdict != .badSignature)
    }

    // MARK: - Property test against the real PHP

    /// Random names from the characters PHP rewrites, random values, a fixed seed. Every body signed must
    /// pass PHP's parse_str + verify_sign and `CallbackSignature.verify` with the same query; every refusal
    /// must be a body where PHP really loses a field. `STOREDESK_PHP_CASES=100000` runs more locally.
    @Test(.timeLimit(.minutes(2))) func everySignedBodyVerifiesInPHP() throws {
        let count = Int(ProcessInfo.processInfo.environment["STOREDESK_PHP_CASES"] ?? "") ?? 1500
        var rng = SeededGenerator(seed: 2026)
        let nameAlphabet: [String] = ["a", "b", "o", "_", ".", " ", "[", "]", "[]", "%", "+", "&", "=", "-", "中", "0", "1", "\u{0}", "sign", "__Host-"]
        let valueAlphabet: [String] = ["x", " ", "+", "%", "&", "=", "\n", "中文", "😀", "\u{0}", "~", "[]"]
        func word(_ alphabet: [String], _ most: Int) -> String {
            (0..<rng.below(most + 1)).map { _ in alphabet[rng.below(alphabet.count)] }.joined()
        }
        var requests: [String] = []
        var expectations: [(body: String, signed: Bool, fields: Int, query: String?)] = []
        var refused = 0
        for _ in 0..<count {
            // Most names start apart (so most bodies sign); the rest collide, drop or read as `sign`.
            let pairs = (0..<(1 + rng.below(5))).map { index in
                ((rng.chance(0.7) ? "f\(index)" : "") + word(nameAlphabet, 5), word(valueAlphabet, 4))
            }
            .filter { $0.0 != "sign" }
            let fields = Self.fields(pairs)
            do {
                let callback = try TypedCallback(fields: fields, appKey: Self.key)
                let check = CallbackSignature.verify(body: callback.body, appKey: Self.key)
                requests.append(#"{"verify":"\#(hex(callback.body))","key":"\#(Self.key)"}"#)
                expectations.append((callback.body, true, fields.count, check.query))
                #expect(check.verdict != .badSignature && check.verdict != .missingSign, "\(pairs): \(callback.body)")
            } catch {
                refused += 1
                let naive = pairs.map { PHPQuery.urlencode($0.0) + "=" + PHPQuery.urlencode($0.1) }.joined(separator: "&")
                requests.append(#"{"count":"\#(hex(naive))"}"#)
                expectations.append((naive, false, fields.count, nil))
            }
        }
        let answers = try PHP.run(script: "verify_bodies.php", lines: requests, timeout: 90)
        try #require(answers.count == requests.count, "PHP answered \(answers.count) of \(requests.count)")
        var failures = 0
        for (answer, expected) in zip(answers, expectations) {
            let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any] ?? [:]
            if expected.signed {
                let verdict = object["verdict"] as? String
                let ok = verdict == "valid" && object["query"] as? String == expected.query
                if !ok, failures < 5 { Issue.record("PHP says \(answer) for \(expected.body)") }
                if !ok { failures += 1 }
            } else {
                // A refused body: PHP keeps fewer values than lines, or reads one as `sign`.
                let leaves = object["leaves"] as? Int ?? -1
                let lost = leaves < expected.fields || object["sign"] as? Bool == true
                if !lost, failures < 5 { Issue.record("refused, yet PHP keeps every field of \(expected.body): \(answer)") }
                if !lost { failures += 1 }
            }
        }
        #expect(failures == 0)
        #expect(refused > 0 && refused < count)
        print("callback sign vs PHP: \(count) cases, \(count - refused) signed and verified by PHP, \(refused) refused (PHP loses a field)")
    }

    func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef")
        return String(text.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0F)]] })
    }
}

/// The real `php` (Debian's php-cli, which `make test` installs), run on a script from Vectors/.
enum PHP {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "php is not on PATH: `make deps` installs php-cli" }
    }

    struct TimedOut: Error, CustomStringConvertible {
        var seconds: Double
        var description: String { "php did not answer within \(seconds) s" }
    }

    /// Sends the lines on stdin and returns stdout's lines; kills php after `timeout` seconds.
    static func run(script: String, lines: [String], timeout: Double) throws -> [String] {
        guard let folder = Bundle.module.url(forResource: "Vectors", withExtension: nil) else { throw Missing() }
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map {
            String($0) + "/php"
        }
        guard let php = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { throw Missing() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: php)
        process.arguments = [folder.appendingPathComponent(script).path]
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-php-" + UUID().uuidString)
        let output = input.appendingPathExtension("out")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: input)
        try Data().write(to: output)
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw TimedOut(seconds: timeout)
        }
        let text = try String(contentsOf: output, encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }
}
