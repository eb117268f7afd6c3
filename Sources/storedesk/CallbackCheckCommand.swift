import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskNetwork
import StoreDeskStore

/// `storedesk callback check URL --app APP`: grades a game server's callback handler against the
/// platform's rules with a battery of real callbacks.
struct CallbackCheckCommand: ParsableCommand {
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
    @Flag(help: "Print the scorecard as JSON (the AppKey masked).") var json = false
    @OptionGroup var store: StoreOptions

    func run() throws {
        if let url { _ = try checkedCallbackURL(url, option: "URL") }
        guard timeout > 0, timeout.isFinite, timeout <= 300 else { throw fail("--timeout must be above 0 and at most 300 seconds, got \(timeout)") }
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
        let firstOrderId = UInt64(Date().timeIntervalSince1970 * 1000) * 100
        let battery = CallbackConformance(app: app, productId: productId, firstOrderId: firstOrderId, at: Instant(Date()))
        let timeout = self.timeout
        let outcomes = try waitFor {
            let poster = CallbackPoster(timeout: timeout, connectionsPerHost: 1)
            let outcomes = await ConformanceCheck(poster: poster).run(battery, url: url)
            try await poster.shutdown()
            return outcomes
        }
        let report = CallbackCheckReport(url: url, app: app, outcomes: outcomes)
        if json { try printJSON(report.json) } else { print(report.text, terminator: "") }
        if !report.allHold { throw ExitCode(1) }
    }
}

/// The scorecard, as text and as JSON.
struct CallbackCheckReport {
    var url: String
    var app: App
    var outcomes: [CallbackConformance.Outcome]

    var allHold: Bool { outcomes.allSatisfy(\.holds) }

    struct JSON: Encodable {
        struct Reply: Encodable {
            @NullWhenAbsent var status: Int?
            var body: String
            var latencyUs: Int
            @NullWhenAbsent var error: String?
            enum CodingKeys: String, CodingKey {
                case status, body, error
                case latencyUs = "latency_us"
            }
        }
        struct Case: Encodable {
            var name: String
            var rule: String
            var expects: String
            var sent: String
            var signedWith: String
            var reply: Reply
            var holds: Bool
            var verdict: String
            var explanation: String
            enum CodingKeys: String, CodingKey {
                case name = "case", rule, expects, sent, reply, holds, verdict, explanation
                case signedWith = "signed_with"
            }
        }
        var url: String
        var app: String
        var appKey: String
        var ok: Bool
        var passed: Int
        var failed: Int
        var cases: [Case]
        enum CodingKeys: String, CodingKey {
            case url, app, ok, passed, failed, cases
            case appKey = "app_key"
        }
    }

    var json: JSON {
        JSON(
            url: url, app: app.id, appKey: app.maskedAppKey, ok: allHold, passed: outcomes.filter(\.holds).count,
            failed: outcomes.filter { !$0.holds }.count,
            cases: outcomes.map { o in
                JSON.Case(
                    name: o.testCase.id, rule: o.testCase.rule, expects: o.testCase.expectsSuccess ? "success" : "not success",
                    sent: o.testCase.body, signedWith: o.testCase.signedWith,
                    reply: .init(
                        status: o.reply.status, body: o.reply.shownBody, latencyUs: o.reply.latencyMicros,
                        error: o.reply.failure?.sentence),
                    holds: o.holds, verdict: o.holds ? "pass" : "fail", explanation: o.explanation)
            })
    }

    var text: String {
        var lines = ["callback check \(url) as \(app.id) (\(app.name)), AppKey \(app.maskedAppKey): \(outcomes.count) cases", ""]
        let width = max(4, outcomes.map(\.testCase.id.count).max() ?? 4)
        for o in outcomes {
            let name = o.testCase.id.padding(toLength: width, withPad: " ", startingAt: 0)
            let expects = (o.testCase.expectsSuccess ? "success" : "not success").padding(toLength: 11, withPad: " ", startingAt: 0)
            lines.append("\(o.holds ? "PASS" : "FAIL")  \(name)  wants \(expects)  got \(o.reply.summary)")
            lines.append("      rule  \(o.testCase.rule)")
            if !o.holds { lines.append("      why   \(o.explanation)") }
            let sent = o.testCase.body.count > 160 ? String(o.testCase.body.prefix(160)) + "…" : o.testCase.body
            lines.append("      sent  \(sent)  (\(o.testCase.signedWith))")
        }
        let failed = outcomes.filter { !$0.holds }
        lines.append("")
        if failed.isEmpty {
            lines.append("all \(outcomes.count) rules hold")
        } else {
            lines.append("\(failed.count) of \(outcomes.count) rules do not hold: " + failed.map(\.testCase.id).joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
