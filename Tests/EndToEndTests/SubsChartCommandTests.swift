import Foundation
import Testing

/// `storedesk subs USER --chart`: each subscription's timeline bar under the text, in block elements or
/// ASCII, through the real binary on the demo store.
@Suite struct SubsChartCommandTests {
    /// Jay 黄: a monthly subscription paid, in its grace period at the store's clock, then billing retry.
    static let jay = "10000013"

    func chart(_ output: String) -> [String] {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("  chart  ") }) else { return [] }
        return Array(lines[start...])
    }

    @Test func blocksUnderTheTextWithTheClockAndALegendInWords() throws {
        let home = TemporaryHome()
        let plain = try storedesk(["subs", Self.jay], home: home)
        let run = try storedesk(["subs", Self.jay, "--chart", "--width", "60"], home: home)
        #expect(run.status == 0, "\(run.stderr)")
        // The existing text first, unchanged; the chart after it.
        #expect(run.stdout.hasPrefix(plain.stdout.trimmingCharacters(in: .newlines)))
        let chart = chart(run.stdout)
        #expect(chart.first == "  chart  com.storedesk.starvoyage.vip.monthly  (original transaction 2000000100000043)")
        let bar = String(try #require(chart.dropFirst().first).dropFirst(4))
        #expect(bar.count == 60)
        #expect(bar.filter { $0 == "┃" }.count == 1)
        #expect(bar.hasPrefix("████") && bar.contains("░") && bar.contains("▚"))
        // Paid, then grace, the clock in the grace period, then billing retry.
        let clock = try #require(bar.firstIndex(of: "┃"))
        #expect(bar[bar.index(before: clock)] == "░")
        #expect(bar.firstIndex(of: "░")! < bar.firstIndex(of: "▚")!)
        #expect(chart[2].contains("2026-08-10"))
        #expect(chart.dropFirst(3).joined().contains("█ paid  ░ grace period  ▚ billing retry  ┃ store clock"))
    }

    @Test func asciiWhenAskedOrWhereBlocksWouldNotShow() throws {
        let home = TemporaryHome()
        let asked = try storedesk(["subs", Self.jay, "--chart", "--ascii", "--width", "40"], home: home)
        #expect(asked.status == 0, "\(asked.stderr)")
        let chart = chart(asked.stdout)
        #expect(chart.count >= 4)
        #expect(chart.allSatisfy { $0.allSatisfy(\.isASCII) || $0.hasPrefix("  chart") })
        let bar = String(chart[1].dropFirst(4))
        #expect(bar.count == 40 && bar.hasPrefix("###") && bar.contains("-|") && bar.contains("~"))
        #expect(chart.dropFirst(3).joined(separator: " ").contains("# paid  - grace period"))
        // The same on TERM=linux and in the C locale, without --ascii.
        for environment in [["TERM": "linux"], ["LANG": "C"]] {
            let run = try Binary.run(["subs", Self.jay, "--chart", "--width", "40"], home: home, environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(self.chart(run.stdout) == chart, "\(environment)")
        }
        // Without --width the bar is 72 columns.
        let standard = try storedesk(["subs", "10000003", "--chart", "--ascii"], home: home)
        #expect(standard.stdout.components(separatedBy: "  chart  ").count - 1 == 1)
        #expect(self.chart(standard.stdout)[1].count == 4 + 72)
    }

    @Test func aWidthOutOfRangeOrWithoutTheChartIsRefusedInOneLine() throws {
        let home = TemporaryHome()
        for (arguments, message) in [
            (["--chart", "--width", "5"], "--width must be from 20 to 500 columns, got 5"),
            (["--chart", "--width", "100000"], "--width must be from 20 to 500 columns, got 100000"),
            (["--width", "60"], "--width and --ascii shape the chart: add --chart"),
            (["--ascii"], "--width and --ascii shape the chart: add --chart"),
        ] {
            let run = try storedesk(["subs", Self.jay] + arguments, home: home)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }
}
