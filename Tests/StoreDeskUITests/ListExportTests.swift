import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI
import Testing
@testable import StoreDeskSQLite
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
        console.show("sort added")
        console.press(.character("/"))
        console.type("张伟")
        console.press(.enter)
        let json = console.folder.appendingPathComponent("players.json").path
        console.show("export json \(json)")
        #expect(console.state.status?.text == "exported 1 user to \(json)")
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
        #expect(console.state.status?.text == "\(console.folder.path) is a directory: an export writes only a new file or over a regular one")

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

    @Test func restoresGoOutInTheirStatusFilterAndOrder() throws {
        let console = try ConsoleHarness(size: size, role: .support)
        console.show("restores")
        console.show("status all")
        console.show("sort player desc")
        let csv = console.folder.appendingPathComponent("prompts.csv").path
        console.show("export csv \(csv)")
        #expect(console.state.status?.text == "exported 5 restore prompts to \(csv)")
        let all = try lines(csv)
        #expect(all.first == "transaction_id,user_id,product_id,quantity,app_id,status,prompted_at,resolved_at,resolved_by,resolved_role,reason")
        let expected = try console.database.reader.read {
            try String.fetchAll($0, sql: "SELECT transaction_id FROM restore_request ORDER BY user_id DESC, id DESC")
        }
        #expect(all.dropFirst().map { String($0.prefix { $0 != "," }) } == expected)
        #expect(all.dropFirst().allSatisfy { $0.contains(",open,") || $0.contains(",confirmed,") || $0.contains(",declined,") })
        console.show("export csv \(csv)")
        #expect(console.state.status?.text == "\(csv) exists (export! or --force writes over it)")

        // The open ones, as JSON, with the text filter: the same rows the list shows.
        console.show("status open")
        console.press(.character("/"))
        console.type("20000001")
        console.press(.enter)
        let shown = console.state.screenState(RestoresScreen.self).list.rows.map(\.request.transactionId)
        let json = console.folder.appendingPathComponent("prompts.json").path
        console.show("export json \(json)")
        #expect(console.state.status?.text == "exported \(shown.count) restore prompts to \(json)")
        let decoded = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: String]]
        #expect(decoded?.map { $0["transaction_id"] ?? "" } == shown)
        #expect(decoded?.allSatisfy { $0["status"] == "open" && $0["resolved_by"] == "" } == true)
    }

    @Test func subscriptionsGoOutWithTheirStateAtTheListsInstant() throws {
        let console = try ConsoleHarness(size: size)
        console.show("subscriptions")
        console.press(.character("O"))
        let csv = console.folder.appendingPathComponent("subs.csv").path
        console.show("export csv \(csv)")
        #expect(console.state.status?.text == "exported 20 subscriptions to \(csv)")
        let all = try lines(csv)
        #expect(all.first == "original_transaction_id,user_id,player,product_id,state,expires_date,auto_renew,first_purchased")
        let clock = console.state.clock
        let listed = try console.database.subscriptions(SubscriptionSearch(instant: clock, descending: true), from: .first, limit: 100)
        #expect(all.dropFirst().map { String($0.prefix { $0 != "," }) } == listed.map(\.id))
        // The state is each row's state at the console's clock, as the list groups it.
        let whole = console.folder.appendingPathComponent("subs.json").path
        console.show("export json \(whole)")
        let rows = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: whole))) as? [[String: String]]
        #expect(rows?.map { $0["state"] ?? "" } == listed.map { $0.cursor(at: clock).state.rawValue })
        #expect(Set(listed.map { $0.cursor(at: clock).state }).count > 1)

        // Only one state.
        console.press(.character("s"))
        let json = console.folder.appendingPathComponent("active.json").path
        console.show("export json \(json)")
        let decoded = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [[String: String]]
        let active = listed.filter { $0.cursor(at: clock).state == .active }
        #expect(decoded?.map { $0["original_transaction_id"] ?? "" } == active.map(\.id))
        #expect(decoded?.allSatisfy { $0["state"] == "active" } == true)
        #expect(console.state.status?.text == "exported \(active.count) subscriptions to \(json)")
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

    /// Rows 1...`total` a page at a time, each page taking `delay`: an export long enough to stop midway.
    struct NumberRow: Identifiable, Equatable, Sendable, ExportableRow {
        var id: Int
        static let exportFields = ["n"]
        func exportValues(time: (Instant) -> String) -> [String] { [String(id)] }
    }

    struct NumberPager: ListPager {
        var total: Int
        var delay: TimeInterval = 0
        func cursor(of row: NumberRow) -> Int { row.id }
        func cursor(id: Int) throws -> Int? { id }
        func page(_ anchor: PageAnchor<Int>, limit: Int) throws -> [NumberRow] {
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let start: Int
            switch anchor {
            case .after(let cursor): start = cursor + 1
            case .from(let cursor): start = cursor
            case .first, .last, .before: start = 1
            }
            return (start..<max(start, min(start + limit, total + 1))).map { NumberRow(id: $0) }
        }
    }

    /// A console that has started `:export csv` of `pager`'s rows to `name` in its folder (the export
    /// running on its thread when this returns).
    static func exporting(_ pager: NumberPager, to name: String, size: Size) throws -> (ConsoleHarness, String) {
        let console = try ConsoleHarness(size: size)
        let path = console.folder.appendingPathComponent(name).path
        let request = ExportRequest(format: .csv, path: path, force: false)
        for effect in request.effects({ _ in pager }, noun: "numbers") { console.runtime.apply(console.runtime.perform(effect)) }
        return (console, path)
    }

    static func leftovers(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".export-") }
    }

    @Test func anExportSaysHowFarItGotAndAStoppedOneLeavesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-export-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Rows written so far after each page, then the count
        let whole = folder.appendingPathComponent("whole.csv").path
        var heard: [Int] = []
        let written = try ListExport.write(NumberPager(total: 23), format: .csv, to: whole, force: false, pageSize: 5, progress: { heard.append($0) })
        #expect(written == 23 && heard == [5, 10, 15, 20, 23])
        // Stopped after three pages: an error saying so, no file under the name, nothing beside it
        let stopped = folder.appendingPathComponent("stopped.csv").path
        var pages = 0
        let cancelled = #expect(throws: ListExport.Failure.self) {
            try ListExport.write(
                NumberPager(total: 23), format: .json, to: stopped, force: false, pageSize: 5, cancelled: { pages >= 3 }
            ) { _ in pages += 1 }
        }
        #expect(cancelled?.description == "\(stopped) not written: the export was stopped")
        #expect(pages == 3)
        #expect(!FileManager.default.fileExists(atPath: stopped))
        #expect(try Self.leftovers(folder).isEmpty)
        // Stopped after its last page, before it takes its name: an existing file is left as it was
        try "old\n".write(toFile: whole, atomically: true, encoding: .utf8)
        var last = false
        let late = #expect(throws: ListExport.Failure.self) {
            try ListExport.write(NumberPager(total: 3), format: .csv, to: whole, force: true, pageSize: 5, cancelled: { last }) { _ in last = true }
        }
        #expect(late?.description == ListExport.Failure.cancelled(whole).description)
        #expect(try String(contentsOfFile: whole, encoding: .utf8) == "old\n")
        #expect(try Self.leftovers(folder).isEmpty)
    }

    /// `--force` and `:export!` write over a regular file only: a fifo, a symbolic link (even to a regular
    /// file), a directory or a device is refused in one line naming it, before anything is written, and
    /// stays what it was (a rename onto a device node, as root, replaced `/dev/full` with a CSV file).
    @Test func onlyANewNameOrARegularFileIsWrittenOver() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-export-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let regular = path("regular.csv")
        try "kept\n".write(toFile: regular, atomically: true, encoding: .utf8)
        #expect(mkfifo(path("fifo"), 0o644) == 0)
        #expect(symlink(regular, path("link")) == 0)
        #expect(symlink(path("none"), path("dangling")) == 0)
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: false)
        var cases = [
            ("fifo", "a fifo (named pipe)"), ("link", "a symbolic link (to \(regular))"),
            ("dangling", "a symbolic link (to \(path("none")))"), ("folder", "a directory"),
        ]
        // A device node of our own, /dev/null's numbers, where this user may make one (root): replacing it
        // would harm nothing, and it shows the kind a real device is refused by.
        if mknod(path("device"), S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 { cases.append(("device", "a character device")) }
        func kind(_ path: String) -> mode_t {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
        }
        let kinds = cases.map { kind(path($0.0)) }
        for (name, what) in cases {
            for force in [true, false] {
                let refused = #expect(throws: ListExport.Failure.self) {
                    try ListExport.write(NumberPager(total: 12), format: .csv, to: path(name), force: force, pageSize: 5)
                }
                #expect(refused?.description == "\(path(name)) is \(what): an export writes only a new file or over a regular one")
            }
        }
        #expect(cases.map { kind(path($0.0)) } == kinds, "each stays what it was")
        #expect(try String(contentsOfFile: regular, encoding: .utf8) == "kept\n", "nothing written through the link")
        #expect(!FileManager.default.fileExists(atPath: path("none")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: path("folder")).isEmpty)
        #expect(try Self.leftovers(folder).isEmpty)
        // A regular file is still written over with force, and a new name without.
        #expect(try ListExport.write(NumberPager(total: 12), format: .csv, to: regular, force: true, pageSize: 5) == 12)
        #expect(try lines(regular).count == 13)
        #expect(try ListExport.write(NumberPager(total: 3), format: .csv, to: path("new.csv"), force: false) == 3)
        #expect(try Self.leftovers(folder).isEmpty)
    }

    /// An export that fails part-way (a page cannot be read) removes its unfinished file.
    @Test func aFailedExportLeavesNoHiddenFile() throws {
        struct Broken: Error {}
        struct FailingPager: ListPager {
            func cursor(of row: NumberRow) -> Int { row.id }
            func cursor(id: Int) throws -> Int? { id }
            func page(_ anchor: PageAnchor<Int>, limit: Int) throws -> [NumberRow] {
                if case .first = anchor { return (1...limit).map { NumberRow(id: $0) } }
                throw Broken()
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-export-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("broken.csv").path
        #expect(throws: Broken.self) { try ListExport.write(FailingPager(), format: .csv, to: target, force: false, pageSize: 5) }
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(try Self.leftovers(folder).isEmpty)
    }

    @Test func reportsAreThrottledAndStopWhenTheWorkIsStopped() {
        let start = Date(timeIntervalSince1970: 1_000)
        let work = BackgroundWork(inbox: nil, interval: 0.25, started: start)
        // Not before an interval has passed since the start, then at most one an interval
        #expect(!work.report(.progress("a"), now: start.addingTimeInterval(0.1)))
        #expect(work.report(.progress("b"), now: start.addingTimeInterval(0.3)))
        #expect(!work.report(.progress("c"), now: start.addingTimeInterval(0.5)))
        #expect(work.report(.progress("d"), now: start.addingTimeInterval(0.56)))
        // A report not sent is not even made
        var made = 0
        func message() -> Message {
            made += 1
            return .progress("e")
        }
        let sent = work.report(message(), now: start.addingTimeInterval(0.6))
        #expect(!sent && made == 0)
        #expect(!work.isCancelled)
        work.cancel()
        #expect(work.isCancelled)
        #expect(!work.report(.progress("f"), now: start.addingTimeInterval(5)))
    }

    /// A long export on the console's status line: the rows so far, a few times a second, the first of
    /// them in the message log, the rest replacing it; then the end.
    @Test func theStatusLineFollowsALongExport() throws {
        let (console, path) = try Self.exporting(NumberPager(total: 6_000, delay: 0.06), to: "numbers.csv", size: size)
        #expect(console.state.status?.text == "exporting numbers to \(path)…")
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(20)
        while console.runtime.inbox.inFlight > 0 || !seen.contains(where: { $0.hasPrefix("exported") }), Date() < deadline {
            for reply in console.runtime.inbox.take() {
                console.runtime.apply(reply)
                seen.append(console.state.status?.text ?? "")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let progress = seen.filter { $0.hasPrefix("exporting numbers… ") }
        #expect(!progress.isEmpty, "\(seen)")
        #expect(progress.allSatisfy { $0.hasSuffix(" rows to \(path)") }, "\(progress)")
        // Seven reads of 60 ms with reports at most every 250 ms: a few, never one a page
        #expect(progress.count < 6, "\(progress)")
        #expect(seen.last == "exported 6,000 numbers to \(path)")
        let logged = console.state.messages.map(\.message.text).filter { $0.hasPrefix("exporting numbers") }
        #expect(logged == ["exporting numbers to \(path)…"])
    }

    /// The console closing (a quit, or a signal) stops an export still running and waits for it: its
    /// file is removed and the target never appears.
    @Test func closingTheConsoleStopsAnExportAndRemovesItsFile() throws {
        let (console, path) = try Self.exporting(NumberPager(total: 1_000_000, delay: 0.02), to: "never.csv", size: size)
        let deadline = Date().addingTimeInterval(10)
        while try Self.leftovers(console.folder).isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(try Self.leftovers(console.folder).count == 1, "the export is writing")
        #expect(console.runtime.stopBackground(limit: 10))
        #expect(console.runtime.backgroundWork.isEmpty)
        #expect(try Self.leftovers(console.folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        console.runtime.dispatch(.tick(console.state.clock))
        #expect(console.state.status?.text == "\(path) not written: the export was stopped")
    }

    @Test("an export says its count in words: one row in the singular")
    func theCountIsSaidInWords() {
        #expect(ExportRequest.counted(1, "users") == "1 user")
        #expect(ExportRequest.counted(1, "audit entries") == "1 audit entry")
        #expect(ExportRequest.counted(1, "restore prompts") == "1 restore prompt")
        #expect(ExportRequest.counted(0, "subscriptions") == "0 subscriptions")
        #expect(ExportRequest.counted(20_120, "users") == "20,120 users")
    }
}
