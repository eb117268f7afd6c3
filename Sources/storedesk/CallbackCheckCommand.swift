import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskNetwork
import StoreDeskStoreAPI

/// `storedesk callback check URL --app APP`: grades a game server's callback handler against the
/// platform's rules with a battery of real callbacks.
struct CallbackCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Send a battery of signed callbacks to a game server's URL and grade each reply against the platform's rules.",
        discussion: """
            The app's AppKey comes from the store (never from the command line). Each run uses fresh numeric \
            order ids, so it can be re-run against the same server. Exit 0 only when every rule holds.
            """)

    @Argument(help: ArgumentHelp("The game server's callback URL (default: the app's own callback URL).", valueName: "url"))
    var url: String?
    @Option(help: ArgumentHelp("The app whose AppKey signs the battery.", valueName: "app")) var app: String
    @Option(help: "Seconds to wait for each reply.") var timeout: Double = CallbackPoster.defaultTimeout
    @OptionGroup var output: OutputOptions
    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let url { _ = try checkedCallbackURL(url, option: "URL") }
        guard timeout > 0, timeout.isFinite, timeout <= 300 else { throw fail("--timeout must be above 0 and at most 300 seconds, got \(timeout)") }
    }

    func run() async throws {
        let (app, productId) = try reporting { () throws -> (App, String) in
            let database = try store.open(.readOnly)
            guard let entry = try database.appsWithProducts().first(where: { $0.app.id == self.app }) else {
                throw StoreError.invalidArgument("no app \(self.app) in \(database.path)")
            }
            guard let product = entry.products.first(where: { $0.type == .consumable }) ?? entry.products.first else {
                throw StoreError.invalidArgument("app \(self.app) has no products to put in a callback")
            }
            return (entry.app, product.id)
        }
        guard let url = url ?? app.callbackURL else {
            throw fail("app \(app.id) has no callback URL: name one, or set it with `apps set \(app.id) --callback-url URL`")
        }
        // Above every payment run's block of ids: a game server on this store never takes a later run's
        // genuine callback for a repeat of the check's.
        let now = Instant(Date())
        let firstOrderId = UInt64(OrderNumbers.outsideRuns(at: now.millis))
        let battery = CallbackConformance(app: app, productId: productId, firstOrderId: firstOrderId, at: now)
        let timeout = self.timeout
        let poster = CallbackPoster(timeout: timeout, connectionsPerHost: 1)
        let outcomes = await ConformanceCheck(poster: poster).run(battery, url: url)
        try await poster.shutdown()
        let report = CallbackCheckReport(url: url, app: app, outcomes: outcomes)
        try output.show(report)
        if !report.allHold { throw ExitCode(1) }
    }
}
