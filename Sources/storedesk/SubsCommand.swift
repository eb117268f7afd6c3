import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskUI

/// `storedesk subs USER`: a player's subscriptions at an instant, as the subscription component answers an
/// app, and Apple's status per subscription group.
struct SubsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "subs",
        abstract: "A player's subscriptions at an instant: access, expiry, grace period and each group's status.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "A user id, or the original transaction id of one of the player's subscriptions.") var user: String
    @Option(help: "The instant, ISO-8601 (default: the store's clock).") var at: String?
    @Option(help: "Also say whether this product gives access at that instant.") var product: String?
    @Flag(help: "Under the text, draw each subscription as a timeline bar on a date axis, with a legend.") var chart = false
    @Flag(help: "Draw the chart with ASCII characters (also when the locale is not UTF-8, or TERM is linux or vt100).") var ascii = false
    @Option(help: "The chart's width in columns, \(SubsCommand.widths.lowerBound) to \(SubsCommand.widths.upperBound) (default 72).") var width: Int?
    @OptionGroup var output: OutputOptions

    /// The widths `--width` accepts.
    static let widths = 20...500

    func validate() throws {
        _ = try reporting(askedInstant)
        if let width, !Self.widths.contains(width) {
            throw fail("--width must be from \(Self.widths.lowerBound) to \(Self.widths.upperBound) columns, got \(width)")
        }
        if !chart, width != nil || ascii { throw fail("--width and --ascii shape the chart: add --chart") }
    }

    /// `--at`, read as an instant; nil when not given (the store's clock answers).
    func askedInstant() throws -> Instant? {
        try at.map { text in
            guard let instant = Instant(iso8601: text) else {
                throw StoreError.invalidArgument("--at must be an ISO-8601 date such as 2026-11-20T08:00:00Z, got '\(text.echoed)'")
            }
            return instant
        }
    }

    func run() throws {
        let (owner, records, instant) = try reporting { () throws -> (User, SubscriptionRecords, Instant) in
            let asked = try askedInstant()
            let database = try store.open(.readOnly)
            if let product, try database.product(id: product) == nil {
                throw StoreError.invalidArgument("--product '\(product.echoed)' is not in the store's catalogue")
            }
            let userId = try database.subscriber(named: user)
            guard let owner = try database.user(id: userId) else { throw StoreError.unknownUser(id: userId) }
            return (owner, try database.subscriptionRecords(userId: userId), try asked ?? database.commandNow().instant)
        }
        let snapshot = records.snapshot(at: instant)
        let timeline = SubscriptionTimeline(events: records.events.filter { $0.signedDate <= instant })
        let glyphs = TimelineBar.Glyphs.detect(ascii: ascii, environment: ProcessInfo.processInfo.environment)
        let charts = chart ? SubsReport.charts(records.rows, records.events, snapshot: snapshot, clock: instant, width: width ?? 72) : []
        try output.show(
            SubsReport(owner: owner, snapshot: snapshot, timeline: timeline, instant: instant, product: product, zone: .local, charts: charts, glyphs: glyphs))
    }
}
