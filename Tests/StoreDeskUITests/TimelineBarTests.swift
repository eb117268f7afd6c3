import Foundation
import StoreDeskCore
import Testing
@testable import StoreDeskUI

/// The subscription timeline bar: a pure function of its segments, its clock and its width.
@Suite struct TimelineBarTests {
    static let day: Int64 = 86_400_000
    static func day(_ n: Int64) -> Instant { Instant(millis: 1_780_000_000_000 + n * day) }

    /// 100 days on 100 columns: one column a day, every kind where its dates are.
    static let everyKind = TimelineBar(
        start: day(0), end: day(100),
        segments: [
            .init(.trial, day(0), day(10)), .init(.offer, day(10), day(20)), .init(.paid, day(20), day(40)),
            .init(.grace, day(40), day(50)), .init(.retry, day(50), day(60)), .init(.expired, day(60), day(70)),
            .init(.paid, day(70), day(80)), .init(.refunded, day(80), day(90)), .init(.revoked, day(90), day(100)),
        ],
        clock: day(55))

    @Test func eachKindIsDrawnInTheColumnsOfItsDates() {
        let cells = Self.everyKind.cells(width: 100)
        #expect(cells.count == 100)
        let expected: [(Range<Int>, TimelineBar.Kind)] = [
            (0..<10, .trial), (10..<20, .offer), (20..<40, .paid), (40..<50, .grace), (50..<55, .retry), (56..<60, .retry),
            (60..<70, .expired), (70..<80, .paid), (80..<90, .refunded), (90..<100, .revoked),
        ]
        for (columns, kind) in expected {
            for column in columns { #expect(cells[column] == .kind(kind), "column \(column)") }
        }
        #expect(Self.everyKind.kinds(width: 100) == TimelineBar.Kind.allCases)
    }

    @Test func theClockIsMarkedInItsColumn() {
        #expect(Self.everyKind.cells(width: 100)[55] == .clock)
        #expect(Self.everyKind.cells(width: 100).filter { $0 == .clock }.count == 1)
        // Half the width: day 55 falls in column 27.
        #expect(Self.everyKind.column(of: TimelineBarTests.day(55), width: 50) == 27)
        #expect(Self.everyKind.cells(width: 50)[27] == .clock)
        #expect(Array(Self.everyKind.text(width: 100, glyphs: .ascii))[55] == "|")
        #expect(Array(Self.everyKind.text(width: 100, glyphs: .unicode))[55] == "┃")
        // A clock outside the axis marks nothing.
        var later = Self.everyKind
        later.clock = TimelineBarTests.day(200)
        #expect(!later.cells(width: 100).contains(.clock))
    }

    @Test func everyLineIsExactlyTheWidthAsked() {
        for width in [1, 2, 7, 20, 59, 80, 118, 333] {
            for glyphs in TimelineBar.Glyphs.allCases {
                #expect(Self.everyKind.text(width: width, glyphs: glyphs).count == width)
                #expect(TextWidth.columns(of: Self.everyKind.text(width: width, glyphs: glyphs)) == width)
                let axis = Self.everyKind.axis(width: width, zone: .gmt)
                #expect(width >= 21 ? axis.count == width : axis.count <= width)
                let spans = Self.everyKind.spans(width: width, glyphs: glyphs)
                #expect(spans.map(\.text.count).reduce(0, +) == width)
            }
        }
        let (first, last) = (Self.day(0).dayText(in: .gmt), Self.day(100).dayText(in: .gmt))
        #expect(Self.everyKind.axis(width: 30, zone: .gmt) == first + String(repeating: " ", count: 10) + last)
    }

    @Test func asciiUsesOnlyASCIIAndTheLegendNamesEveryKindInWords() {
        let lines = Self.everyKind.lines(width: 60, glyphs: .ascii, zone: .gmt)
        #expect(lines.allSatisfy { $0.allSatisfy(\.isASCII) })
        #expect(lines.allSatisfy { $0.count <= 60 })
        let legend = lines.dropFirst(2).joined(separator: "  ")
        for name in ["paid", "free trial", "offer", "grace period", "billing retry", "expired", "refunded", "revoked", "store clock"] {
            #expect(legend.contains(name), "\(name)")
        }
        #expect(lines[0].hasPrefix("++++++======############"))
        #expect(Set(TimelineBar.Kind.allCases.map { TimelineBar.Glyphs.ascii.character($0) }).count == TimelineBar.Kind.allCases.count)
        #expect(Set(TimelineBar.Kind.allCases.map { TimelineBar.Glyphs.unicode.character($0) }).count == TimelineBar.Kind.allCases.count)
    }

    @Test func asciiWhereBlocksWouldNotShow() {
        typealias G = TimelineBar.Glyphs
        #expect(G.detect(environment: ["LANG": "en_US.UTF-8", "TERM": "xterm-256color"]) == .unicode)
        #expect(G.detect(environment: ["LANG": "C.utf8"]) == .unicode)
        #expect(G.detect(ascii: true, environment: ["LANG": "C.UTF-8"]) == .ascii)
        #expect(G.detect(environment: ["LANG": "C.UTF-8", "TERM": "linux"]) == .ascii)
        #expect(G.detect(environment: ["LANG": "C.UTF-8", "TERM": "vt100"]) == .ascii)
        #expect(G.detect(environment: ["LANG": "C"]) == .ascii)
        #expect(G.detect(environment: [:]) == .ascii)
        #expect(G.detect(environment: ["LC_ALL": "POSIX", "LANG": "en_US.UTF-8"]) == .ascii)
        #expect(G.detect(environment: ["LC_ALL": "", "LC_CTYPE": "zh_CN.UTF-8", "LANG": "C"]) == .unicode)
    }

    /// From a stored row in grace: paid up to the period's end, grace to its end, then billing retry,
    /// the clock in the grace period.
    @Test func aRowInGraceIsPaidThenGraceThenRetry() throws {
        let row = Subscription(
            id: "2000000100000043", userId: "10000013", appId: "1001", productId: "vip.monthly", groupId: "vip",
            state: .gracePeriod, autoRenew: true, originalPurchaseDate: Self.day(0), purchaseDate: Self.day(30),
            expiresDate: Self.day(60), gracePeriodExpiresDate: Self.day(76))
        let bar = try #require(TimelineBar(rows: [row], events: [], originalTransactionId: row.id, clock: Self.day(70), width: 80))
        #expect(bar.start == Self.day(0))
        let cells = bar.cells(width: 80)
        func kind(at n: Int64) -> TimelineBar.Cell? { bar.column(of: Self.day(n), width: 80).map { cells[$0] } }
        #expect(kind(at: 10) == .kind(.paid))
        #expect(kind(at: 59) == .kind(.paid))
        #expect(kind(at: 62) == .kind(.grace))
        #expect(kind(at: 70) == .clock)
        #expect(kind(at: 90) == .kind(.retry))
        #expect(bar.kinds(width: 80) == [.paid, .grace, .retry])
        // Before the first purchase there is no bar.
        #expect(TimelineBar(rows: [row], events: [], originalTransactionId: row.id, clock: Self.day(-1), width: 80) == nil)
        // A refunded row: paid, then refunded from the revocation on.
        var refunded = row
        refunded.state = .revoked
        refunded.gracePeriodExpiresDate = nil
        refunded.revocationDate = Self.day(45)
        let after = try #require(TimelineBar(rows: [refunded], events: [], originalTransactionId: row.id, clock: Self.day(70), width: 80))
        #expect(after.kinds(width: 80) == [.paid, .refunded])
    }

    /// The bar asks a subscription's state at a few grid points and halves where two differ; on step
    /// functions whose every stretch holds an asked point (a mark or the stride), it agrees with asking
    /// every point, and asks far fewer.
    @Test func theProbeAgreesWithAskingEveryPoint() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let count = Int.random(in: 1...600, using: &generator)
            let edges = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0..<count, using: &generator) }.sorted()
            func truth(_ i: Int) -> Int? { let k = edges.filter { $0 <= i }.count; return k % 3 == 2 ? nil : k }
            var asked = 0
            var probe = GridProbe<Int?>(count: count) { i in asked += 1; return truth(i) }
            // Each edge is a named date: the point before it is its mark.
            let kinds = probe.resolve(every: 4, marks: edges.map { $0 - 1 })
            #expect(kinds == (0..<count).map(truth))
            if edges.isEmpty { #expect(asked <= count / 4 + 2) }
        }
    }
}
