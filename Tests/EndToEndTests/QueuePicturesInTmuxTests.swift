import Foundation
import Testing

/// The Queue's pictures in a real terminal while the simulation runs: the sparklines fill from the right
/// as purchases, grants and callbacks are written, and the state bar names every state with its count.
@Suite(.serialized) struct QueuePicturesInTmuxTests {
    typealias Tmux = ConsoleInTmuxTests.Tmux

    static let sparkMarks = Set("▁▂▃▄▅▆▇█")

    /// The header's lines (below the tab bar) once the simulation has written for a few seconds.
    func runningQueue(width: Int, height: Int, ascii: Bool = false) throws -> String {
        let home = TemporaryHome()
        try home.withDemoStore()
        let env = "HOME=\(home.url.path) XDG_DATA_HOME=\(home.url.path)/data TERM=tmux-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC USER=e2e"
        let command = "env \(env) \(Binary.path) --role developer --refresh 0.3\(ascii ? " --ascii" : ""); sleep 30"
        let tmux = try Tmux(width: width, height: height, command: command)
        try tmux.waitFor("? help")
        try tmux.keys("2")
        try tmux.waitFor("no simulation in this console")
        try tmux.keys("r")
        // With --ascii no symbol reaches the terminal: ▶ is >, × is x.
        try tmux.waitFor(ascii ? "simulation > 1x" : "simulation ▶ 1×")
        try tmux.keys("+", "+", "+")
        try tmux.waitFor(ascii ? "simulation > 10x" : "simulation ▶ 10×")
        // A few seconds at 10×: the last columns of each series have something in them.
        Thread.sleep(forTimeInterval: 4)
        let screen = try tmux.capture()
        try tmux.keys("r")
        try tmux.waitFor("simulation stopped")
        return screen
    }

    @Test(arguments: [(80, 24), (120, 40), (200, 60)])
    func sparklinesAndTheLabelledStateBarWhileTheSimulationRuns(width: Int, height: Int) throws {
        let screen = try runningQueue(width: width, height: height)
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The state bar: every state's word (or its short word at 80 columns) and its count.
        let bar = try #require(lines.first { $0.contains(" in queue ") }, "\(screen)")
        for words in [["purchasing", "buying"], ["purchased", "paid"], ["deferred", "defer"], ["failed", "fail"], ["restored", "rest"]] {
            #expect(words.contains { word in bar.range(of: "\(word) [0-9][0-9,]*", options: .regularExpression) != nil }, "\(words[0]): \(bar)")
        }
        // Two lines of sparklines, each series named, with block marks and its figures.
        let purchases = try #require(lines.first { $0.contains("purchases ") }, "\(screen)")
        #expect(purchases.contains("grants "), "\(purchases)")
        #expect(purchases.contains { Self.sparkMarks.contains($0) }, "\(purchases)")
        #expect(purchases.range(of: "purchases +[ ▁-█]+ [0-9,]+ max [0-9,]+", options: .regularExpression) != nil, "\(purchases)")
        let latency = try #require(lines.first { $0.contains("latency ") }, "\(screen)")
        #expect(latency.contains("failures "), "\(latency)")
        #expect(latency.range(of: "latency +[ ▁-█]+ [0-9.]+m?s max [0-9.]+m?s", options: .regularExpression) != nil, "\(latency)")
        // Every line of the frame keeps to the terminal's width.
        #expect(lines.allSatisfy { $0.count <= width })
    }

    @Test func asciiDrawsThePicturesInASCII() throws {
        let screen = try runningQueue(width: 80, height: 24, ascii: true)
        let lines = screen.split(separator: "\n").map(String.init)
        let purchases = try #require(lines.first { $0.contains("purchases ") }, "\(screen)")
        let ascii = purchases.allSatisfy { $0.isASCII }
        #expect(ascii, "\(purchases)")
        #expect(purchases.contains { "#*+=-:.".contains($0) }, "\(purchases)")
        let bar = try #require(lines.first { $0.contains(" in queue ") })
        #expect(bar.allSatisfy { $0.isASCII || $0 == "│" }, "\(bar)")
    }
}
