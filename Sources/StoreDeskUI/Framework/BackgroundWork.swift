import Foundation

/// One `Effect.background`'s line to the console: whether the console wants it to stop (it is closing,
/// by `q`, Ctrl-C or a signal), and how far it got, said on the status line.
///
/// Work that writes a file checks `isCancelled` between pieces and, when it is, removes what it made and
/// ends; the console waits for it before it exits (`ConsoleRuntime.stopBackground`), so nothing is left
/// half-written. `report` hands a message to the console's loop through its inbox, at most
/// once every `reportInterval`, so a fast loop costs no more frames than a slow one.
///
///     .background { store, work in
///         for page in pages {
///             if work.isCancelled { throw Cancelled() }
///             written += try write(page)
///             work.report(.progress("exporting… \(written) rows"))
///         }
///         return .done("exported \(written) rows")
///     }
public final class BackgroundWork: @unchecked Sendable {
    /// The least time between two reports: four a second.
    public static let reportInterval: TimeInterval = 0.25

    private let condition = NSCondition()
    private var cancelled = false
    private var finished = false
    private var lastReport: Date
    private let inbox: ConsoleInbox?
    private let interval: TimeInterval

    /// `inbox`: where reports go (nil: nowhere). The first report comes an interval after the start, so
    /// work done at once reports only its end.
    init(inbox: ConsoleInbox?, interval: TimeInterval = BackgroundWork.reportInterval, started: Date = Date()) {
        self.inbox = inbox
        self.interval = interval
        lastReport = started
    }

    /// Whether the console asked the work to stop.
    public var isCancelled: Bool { condition.withLock { cancelled } }

    /// Hands `message` to the console when the last report is at least an interval old; otherwise drops
    /// it (without making it). Returns whether it went.
    @discardableResult
    public func report(_ message: @autoclosure () -> Message, now: Date = Date()) -> Bool {
        let due = condition.withLock {
            guard !cancelled, now.timeIntervalSince(lastReport) >= interval else { return false }
            lastReport = now
            return true
        }
        if due { inbox?.post(message()) }
        return due
    }

    func cancel() { condition.withLock { cancelled = true } }

    /// The work ended (its message is on its way).
    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }

    var isFinished: Bool { condition.withLock { finished } }

    /// Waits until the work ended or `deadline` passed; returns whether it ended.
    func waitUntilFinished(before deadline: Date) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !finished && Date() < deadline { _ = condition.wait(until: deadline) }
        return finished
    }
}
