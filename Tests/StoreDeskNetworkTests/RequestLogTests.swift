import Foundation
import StoreDeskNetwork
import Testing

/// `serve`'s log writes text from request bodies (an order_id, a client_id): it must not reach the
/// terminal the log is on as an escape sequence, nor add a line that looks like another request's.
@Suite struct RequestLogTests {
    @Test func controlCharactersFromABodyAreEscapedAndTheLineStaysOne() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-log-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let log = RequestLog(handle: handle)
        log.write("127.0.0.1 POST /callback 200 5 µs order_id=\u{1B}]0;PWNED\u{07}\n2026-01-01T00:00:00.000Z forged")
        try handle.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 1, "\(text)")
        #expect(!text.contains("\u{1B}") && !text.contains("\u{07}"))
        #expect(text.hasSuffix("order_id=\\e]0;PWNED\\a\\n2026-01-01T00:00:00.000Z forged\n"), "\(text)")
    }
}
