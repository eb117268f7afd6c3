import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskUI

/// The column mechanism every list uses, and the word wrap every detail pane uses.
@Suite struct ColumnLayoutTests {
    struct Row {
        var id: String
        var user: String
        var state: String
        var product: String
    }

    /// Drawn in this order; the transaction id and the user are what a ticket gives, so they go last.
    static var columns: [ListColumn<Row>] {
        [
            ListColumn("STATE", priority: 3, width: 10) { $0.state },
            ListColumn("ID", priority: 1, width: 16) { $0.id },
            ListColumn("USER", priority: 2, min: 8, ideal: 9) { $0.user },
            ListColumn("PRODUCT", priority: 4, min: 8, ideal: 12, grows: true) { $0.product },
        ]
    }
    static let row = Row(id: "2000000100000104", user: "10000039", state: "purchasing", product: "starvoyage.gems.60")

    @Test func aNarrowListKeepsTheIdsATicketGives() {
        let layout = ColumnLayout(Self.columns, width: 30)
        #expect(layout.widths == [0, 16, 9, 0])
        #expect(layout.header == " ID               USER     ")
        #expect(layout.line(Self.row) == " 2000000100000104 10000039 ")
        #expect(layout.offset(of: "USER") == 18)
        #expect(layout.offset(of: "STATE") == nil)
    }

    @Test func moreRoomAddsColumnsByPriorityThenGrowsThem() {
        // 1 + 16 + 1 + 8 + 1 + 10 = 37: the state joins at its width, the user at its minimum.
        #expect(ColumnLayout(Self.columns, width: 37).widths == [10, 16, 8, 0])
        // The product joins at its minimum before anything grows past it.
        #expect(ColumnLayout(Self.columns, width: 46).widths == [10, 16, 8, 8])
        // Ideal widths first, then the rest to the growing column, but one: the line ends a space short
        // of the border, as it starts a space after it.
        let wide = ColumnLayout(Self.columns, width: 80)
        #expect(wide.widths == [10, 16, 9, 80 - 1 - 10 - 16 - 9 - 3 - 1])
        #expect(wide.line(Self.row).columns == 79)
        #expect(wide.header.hasPrefix(" STATE      ID               USER      PRODUCT"))
    }

    @Test func aColumnIsNeverShownWhileAMoreImportantOneIsNot() {
        let columns: [ListColumn<Row>] = [
            ListColumn("WIDE", priority: 1, width: 20) { $0.id },
            ListColumn("TOO WIDE", priority: 2, width: 30) { $0.id },
            ListColumn("NARROW", priority: 3, width: 6) { $0.user },
        ]
        #expect(ColumnLayout(columns, width: 30).widths == [20, 0, 0])
        #expect(ColumnLayout(columns, width: 59).widths == [20, 30, 6])
    }

    @Test func everyCutCellEndsInAnEllipsisAndLinesNeverOverflow() {
        let columns: [ListColumn<Row>] = [
            ListColumn("APPLE ID", priority: 1, min: 10, ideal: 10) { $0.id },
            ListColumn("NAME", priority: 2, min: 4, ideal: 6, grows: true) { $0.product },
            ListColumn("N", priority: 3, width: 5, alignment: .right) { $0.user },
        ]
        let row = Row(id: "apple.zhang.wei@example.com", user: "42", state: "", product: "张伟🐉的小花园")
        for width in 12...40 {
            let layout = ColumnLayout(columns, width: width)
            let line = layout.line(row)
            #expect(line.columns <= width, "\(width): \(line)")
            #expect(line.contains("apple.zha…"), "\(width): \(line)")
            #expect(!line.contains("apple.zhan "))
        }
        // Right-aligned numbers, and a wide character never split.
        let line = ColumnLayout(columns, width: 24).line(row)
        #expect(line == " apple.zha… 张伟…     42")
    }

    @Test func anEmptyOrTinyWidthShowsNothing() {
        #expect(ColumnLayout(Self.columns, width: 0).widths == [0, 0, 0, 0])
        #expect(ColumnLayout(Self.columns, width: 5).header == "")
        #expect(ColumnLayout(Self.columns, width: 16).header == "")
    }

    @Test func everyListDeclaresItsTicketIdsFirst() {
        let zone = TimeZone(identifier: "UTC")!
        let queue = QueueScreen.columns(now: Instant(millis: 0), zone: zone)
        #expect(queue.sorted { $0.priority < $1.priority }.prefix(2).map(\.title) == ["TRANSACTION", "USER"])
        let restores = RestoresScreen.columns(showing: .open, now: Instant(millis: 0), zone: zone)
        #expect(restores.sorted { $0.priority < $1.priority }.first?.title == "TRANSACTION")
        #expect(UsersScreen.columns(zone: zone).sorted { $0.priority < $1.priority }.first?.title == "ID")
        // At 80x24 the list is 38 columns inside its frame: the Queue keeps USER and the transaction.
        let inner = Layout(size: Size(width: 80, height: 24))[.list].inset.width
        #expect(ColumnLayout(queue, width: inner).shows("TRANSACTION") && ColumnLayout(queue, width: inner).shows("USER"))
        #expect(ColumnLayout(restores, width: inner).shows("TRANSACTION"))
        // At 200x60 every list gains columns.
        let wide = Layout(size: Size(width: 200, height: 60))[.list].inset.width
        #expect(ColumnLayout(queue, width: wide).widths.filter { $0 > 0 }.count > ColumnLayout(queue, width: inner).widths.filter { $0 > 0 }.count)
        #expect(ColumnLayout(UsersScreen.columns(zone: zone), width: wide).shows("CREATED"))
    }
}

@Suite struct TextWrapTests {
    @Test func wrapsAtSpacesAndKeepsDatesAndWordsWhole() {
        let text = "the callback was queued at 2026-11-20T08:02:18Z and the retry that follows waits"
        let lines = TextWrap.lines(text, width: 24)
        #expect(lines == ["the callback was queued", "at 2026-11-20T08:02:18Z", "and the retry that", "follows waits"])
        for line in lines { #expect(line.columns <= 24) }
    }

    /// A wrapped line ends in `…` only where text was cut: a broken word's pieces fill
    /// their lines and go on, whole.
    @Test func onlyAWordLongerThanALineIsBrokenAndNothingOfItIsLost() {
        let text = "body {\"channel\":\"appstore\",\"ver\":\"3.2.1\"} ok"
        let lines = TextWrap.lines(text, width: 12)
        #expect(lines == ["body", "{\"channel\":\"", "appstore\",\"v", "er\":\"3.2.1\"}", "ok"])
        #expect(lines.joined().replacingOccurrences(of: " ", with: "") == text.replacingOccurrences(of: " ", with: ""))
        #expect(!lines.joined().contains("…"))
        for line in lines { #expect(line.columns <= 12) }
    }

    @Test func wideCharactersAndControlsAreMeasuredAsDrawn() {
        #expect(TextWrap.lines("张伟🐉 的小花园", width: 6) == ["张伟🐉", "的小花", "园"])
        #expect(TextWrap.lines("a\nb", width: 10) == ["a\\nb"])
        #expect(TextWrap.lines("", width: 10) == [""])
    }

    @Test func detailFieldsWrapByWords() {
        var text = DetailText(labelWidth: 8)
        text.wrapped("verdict", "the signature follows the rules", width: 20)
        #expect(text.lines.map { $0.map(\.text).joined() } == ["verdict the", "        signature", "        follows the", "        rules"])
    }

    @Test func aLabelledValueWrapsBetweenItsPartsAndKeepsDatesAndIdsWhole() {
        // Parts packed while they fit the value's column, broken between them, never inside one
        #expect(
            TextWrap.field(["10000039", "sid s4", "role r1"], valueWidth: 20, width: 31)
                == [TextWrap.FieldLine("10000039 · sid s4"), TextWrap.FieldLine("role r1")])
        // A date wider than the column goes whole on a line from the pane's edge, not split at its space
        #expect(
            TextWrap.field(["2026-11-20 07:59:40", "Production"], valueWidth: 15, width: 26)
                == [TextWrap.FieldLine("2026-11-20 07:59:40", fromEdge: true), TextWrap.FieldLine("Production")])
        // A part wider than the pane breaks at its own spaces, its id whole from the edge
        #expect(
            TextWrap.field(["com.storedesk.starvoyage.vip.monthly ×1", "星海征途"], valueWidth: 25, width: 36)
                == [TextWrap.FieldLine("com.storedesk.starvoyage.vip.monthly", fromEdge: true), TextWrap.FieldLine("×1 · 星海征途")])
        // Only a word wider than the pane itself is broken, its pieces filling their lines
        #expect(
            TextWrap.field(["0123456789abcdef"], valueWidth: 4, width: 10)
                == ["0123456789", "abcdef"].map { TextWrap.FieldLine($0, fromEdge: true) })
        #expect(TextWrap.field([], valueWidth: 10, width: 20) == [TextWrap.FieldLine("")])
    }

    @Test func aDetailFieldOfPartsPutsAWholeIdUnderItsLabel() {
        var text = DetailText(labelWidth: 11)
        text.field("player", ["10000039", "sid s4", "role r1"], width: 36)
        text.field("product", ["com.storedesk.starvoyage.vip.monthly ×1", "星海征途"], width: 36)
        // At 80x24 the Queue's detail has 36 columns: each value wraps, nothing is cut
        #expect(
            text.lines.map { $0.map(\.text).joined() } == [
                "player     10000039 · sid s4", "           role r1", "product", "com.storedesk.starvoyage.vip.monthly",
                "           ×1 · 星海征途",
            ])
        #expect(text.lines.allSatisfy { $0.reduce(0) { $0 + $1.text.columns } <= 36 })
        #expect(text.lines[2].map(\.role) == [.detailLabel] && text.lines[3].map(\.role) == [.detailValue])
    }

    @Test func theCanvasEndsCutTextInAnEllipsis() {
        func drawn(_ text: String, width: Int) -> String {
            var canvas = Canvas(size: Size(width: width, height: 1))
            canvas.write(text, at: Point(x: 0, y: 0), role: .text, maxWidth: width, ellipsis: true)
            return canvas.plainText
        }
        #expect(drawn("apple.zhangwei88", width: 10) == "apple.zha…\n")
        #expect(drawn("apple.zhan", width: 10) == "apple.zhan\n")
        // A wide character gives its place to the ellipsis, whole.
        #expect(drawn("张伟🐉的", width: 6) == "张伟…\n")
        #expect(drawn("张伟🐉", width: 5) == "张伟…\n")
        // Padding cut is no loss.
        #expect(drawn("abc         ", width: 6) == "abc\n")
    }

    @Test func tabBarKeepsTheCurrentTabNamed() {
        for width in [59, 70, 79, 119, 199] {
            for current in 0..<ScreenID.allCases.count {
                let labels = AppState.tabLabels(current: current, width: width)
                let id = ScreenID.allCases[current]
                #expect(
                    labels[current].contains("\(current + 1) \(id.title)") || labels[current].contains("\(current + 1) \(id.shortTitle)"),
                    "\(width) \(current): \(labels)")
                #expect(labels.reduce(0) { $0 + $1.columns + 1 } <= width + 1, "\(width): \(labels)")
                for (i, label) in labels.enumerated() { #expect(label.contains("\(i + 1)")) }
                // From 80 columns (79 inside the bar's margin) every tab has a name, not only a number.
                if width >= 79 { #expect(labels.allSatisfy { $0.contains { $0.isLetter } }, "\(width) \(current): \(labels)") }
                if width >= 119 { #expect(labels[current].contains("\(current + 1) \(id.title)")) }
            }
        }
        // Where the current tab's whole title fits beside the others' short ones, it keeps it.
        #expect(AppState.tabLabels(current: 0, width: 79)[0] == "1 Users")
        #expect(AppState.tabLabels(current: 4, width: 79)[4] == "5 Subs")
        #expect(AppState.tabLabels(current: 4, width: 59)[4] == "5 Subscriptions")
    }

    @Test func aGuestsAccountTypeIsExplainedAndWrappedNotCut() throws {
        let console = try ConsoleHarness(size: Size(width: 120, height: 40))
        console.show("select 10000004")
        let text = console.text
        #expect(text.contains("VeryCD (site 0: the platform's own legacy"), "\(text)")
        #expect(text.contains("logins have it too)"), "\(text)")
        #expect(!text.contains("legac…"))
    }

    @Test func aChartShorterThanADayNamesItsEndsToTheMinute() {
        let start = Instant(millis: 1_795_132_800_000)
        let bar = TimelineBar(start: start, end: start.adding(.minutes(6)), segments: [], clock: start)
        #expect(bar.axis(width: 40, zone: .gmt) == "2026-11-20 00:00" + String(repeating: " ", count: 8) + "2026-11-20 00:06")
        let long = TimelineBar(start: start, end: start.adding(.days(3)), segments: [], clock: start)
        #expect(long.axis(width: 30, zone: .gmt) == "2026-11-20" + String(repeating: " ", count: 10) + "2026-11-23")
    }

    @Test func columnsFitTheirCellsSoAWidePaneCutsNoId() {
        let columns: [ListColumn<ColumnLayoutTests.Row>] = [
            ListColumn("ID", priority: 1, width: 16) { $0.id },
            ListColumn("PRODUCT", priority: 2, min: 8, ideal: 20, grows: true) { $0.product },
            ListColumn("ACCOUNT", priority: 3, min: 8, ideal: 8) { $0.user },
        ]
        let row = ColumnLayoutTests.Row(id: "2000000100000104", user: "s4/r10000039-1", state: "", product: "gems.60 ×1")
        // Laid out blind, the product takes its ideal 20 and the account is cut at 8.
        #expect(ColumnLayout(columns, width: 44).line(row).contains("s4/r100…"))
        // Laid out for the rows shown, the product takes what its cells need, the account its whole id,
        // and what is left still goes to the growing column.
        let fitted = ColumnLayout(columns, width: 44, fitting: [row])
        #expect(fitted.widths == [16, 10, 14])
        #expect(fitted.line(row) == " 2000000100000104 gems.60 ×1 s4/r10000039-1")
        // Narrower, the ids take the room before a growing column (a product, a name) does: the
        // product is cut first.
        let narrow = ColumnLayout(columns, width: 38, fitting: [row])
        #expect(narrow.widths == [16, 8, 11])
        #expect(narrow.line(row) == " 2000000100000104 gems.60… s4/r100000…")
        // No rows: the columns' own widths, as blind.
        #expect(ColumnLayout(columns, width: 44, fitting: [ColumnLayoutTests.Row]()).widths == ColumnLayout(columns, width: 44).widths)
    }
}
