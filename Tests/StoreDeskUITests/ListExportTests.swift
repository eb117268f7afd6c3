import Foundation
import Testing
@testable import StoreDeskStore
@testable import StoreDeskUI

/// `:export csv|json PATH`: the whole list as shown (filter and order applied), through the pager a page at
/// a time, never over an existing file unless `:export!`, reported on the status line.
@Suite struct ListExportTests {
    let size = Size(width: 120, height: 30)

    func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func theWholeListGoesOutWithItsFilterAndOrder() throws {
        let console = try ConsoleHarness(size: size)
        let csv = console.folder.appendingPathComponent("players.csv").path
        console.show("export csv \(csv)")
        #expect(console.state.status?.text == "exported 40 users to \(csv)")
        let all = try lines(csv)
        #expect(all.count == 41)
        #expect(all.first == "id,name,friendly_name,account_type,age_band,phone,created_at")
        #expect(all[1].hasPrefix("10000001,张伟,阿伟,WeChat,adult,138****0000,"))
        // Never a whole phone number.
        #expect(!all.contains { $0.contains("13800000000") })

        // An existing file is refused; export! writes over it, here with the sort applied.
        console.show("sort id desc")
        console.show("export csv \(csv)")
        #expect(console.state.status?.text == "\(csv) exists (export! or --force writes over it)")
        #expect(try lines(csv).count == 41)
        console.show("export! csv \(csv)")
        #expect(try lines(csv)[1].hasPrefix("10000040,"))

        // The filter applies; JSON is one array.
        console.show("sort created")
        console.press(.character("/"))
        console.type("张伟")
        console.press(.enter)
        let json = console.folder.appendingPathComponent("players.json").path
        console.show("export json \(json)")
        #expect(console.state.status?.text == "exported 1 users to \(json)")
        let decoded = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: String]]
        #expect(decoded?.map { $0["id"] } == ["10000001"])
        // Nothing left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: console.folder.path).filter { $0.contains(".export-") }.isEmpty)
    }

    @Test func badArgumentsAndOtherListsSayWhat() throws {
        let console = try ConsoleHarness(size: size)
        console.show("export")
        #expect(console.state.status?.text == ":export needs a format and a file: :export csv|json PATH")
        console.show("export xml /tmp/x")
        #expect(console.state.status?.text == ":export needs a format and a file: :export csv|json PATH")
        console.show("export csv")
        #expect(console.state.status?.text == ":export csv needs a file to write")
        console.show("export csv \(console.folder.path)")
        #expect(console.state.status?.text == "\(console.folder.path) is a directory")

        console.show("queue")
        let queue = console.folder.appendingPathComponent("queue.csv").path
        console.show("export csv \(queue)")
        #expect(console.state.status?.text == "exported 11 transactions to \(queue)")
        console.show("audit")
        let audit = console.folder.appendingPathComponent("audit.csv").path
        console.show("export csv \(audit)")
        let entries = try lines(audit).count - 1
        #expect(console.state.status?.text == "exported \(entries) audit entries to \(audit)")
    }

    /// The export runs on a thread of its own: the console says it is exporting and takes keys while the
    /// rows are written, and says how many when it is done.
    @Test func theConsoleStaysLiveWhileItExports() throws {
        let console = try ConsoleHarness(size: size)
        let csv = console.folder.appendingPathComponent("live.csv").path
        console.press(.character(":"))
        console.type("export csv \(csv)")
        console.runtime.dispatch(.key(.enter), settle: false)
        #expect(console.state.status?.text == "exporting users to \(csv)…")
        // A key while it writes moves the selection (dispatch then waits for the export's reply).
        console.press(.character("j"))
        #expect(console.state.screenState(UsersScreen.self).selectedRow?.user.id == "10000002")
        #expect(console.state.status?.text == "exported 40 users to \(csv)")
        #expect(try lines(csv).count == 41)
    }

    @Test func fieldsAreQuotedAsCSVAndEscapedAsJSON() {
        #expect(ListExport.csvField("plain") == "plain")
        #expect(ListExport.csvField("a,b") == "\"a,b\"")
        #expect(ListExport.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        // What a spreadsheet would run as a formula is written as text.
        #expect(ListExport.csvField("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"")
        for formula in ["+1+1", "-2+3", "@SUM(A1)", "\tcmd", "=1"] { #expect(ListExport.csvField(formula).hasPrefix("'") || ListExport.csvField(formula).hasPrefix("\"'")) }
        #expect(ListExport.csvField("O'Brien") == "O'Brien")
        #expect(ListExport.csvField("a=b") == "a=b")
        #expect(ListExport.jsonString("a\"b\\c\n\u{1}") == "\"a\\\"b\\\\c\\n\\u0001\"")
    }
}
