import Foundation
import StoreDeskCore
import StoreDeskNetwork
@testable import StoreDeskSQLite
import Testing

/// The conformance battery against the real PHP game server, and against variants of it with one rule
/// broken each: the check passes the first and names the broken rule of every other.
@Suite(.serialized) struct ConformanceCheckTests {
    static let app = App(
        id: "app_galaxy", name: "Galaxy Quest", bundleId: "com.example.galaxy", appKey: "k3y-S3cr3t-2026", currencyPerYuan: 10,
        restoreOwnership: .transfer, gracePeriodDays: 0)

    static func check(breaking rule: String?, folder: TemporaryFolder, firstOrderId: UInt64) async throws -> [CallbackConformance.Outcome] {
        let php = try PHPGameServer(keys: [app.id: app.appKey], breaking: rule, folder: folder)
        defer { php.stop() }
        let poster = CallbackPoster(timeout: 5, connectionsPerHost: 1)
        let battery = CallbackConformance(
            app: app, productId: "com.example.gems.60", firstOrderId: firstOrderId, at: Instant(millis: 1_800_000_000_000))
        let outcomes = await ConformanceCheck(poster: poster).run(battery, url: php.url)
        try await poster.shutdown()
        return outcomes
    }

    @Test("the platform doc's handler passes every rule, and again on a second run against the same server")
    func conformingServerPasses() async throws {
        let folder = TemporaryFolder()
        let php = try PHPGameServer(keys: [Self.app.id: Self.app.appKey], folder: folder)
        let poster = CallbackPoster(timeout: 5, connectionsPerHost: 1)
        for run in 0..<2 {
            let battery = CallbackConformance(
                app: Self.app, productId: "com.example.gems.60", firstOrderId: 17_000_000_000_000 + UInt64(run) * 100,
                at: Instant(millis: 1_800_000_000_000))
            let outcomes = await ConformanceCheck(poster: poster).run(battery, url: php.url)
            #expect(outcomes.count >= 15)
            for outcome in outcomes where !outcome.holds { Issue.record("\(outcome.testCase.id): \(outcome.explanation)") }
        }
        try await poster.shutdown()
        // Every order that should grant granted once (the repeat and the refusals granted nothing more).
        #expect(try php.grants().count == 2 * 10)
    }

    @Test(
        "a handler with one rule broken fails, and the scorecard names that rule",
        arguments: [
            ("no-repeat-success", ["repeat"], true),
            ("case-sensitive", ["sign-upper-case"], true),
            ("no-sign-required", ["no-sign"], true),
            ("no-check", ["changed-field", "no-sign", "another-key", "ext-changed"], true),
            ("rfc3986", ["spaces"], false),
            ("no-ksort", ["field-order"], false),
            ("trailing-newline", ["valid", "repeat"], false),
        ])
    func brokenHandlerFails(rule: String, names: [String], exactly: Bool) async throws {
        let folder = TemporaryFolder()
        let outcomes = try await Self.check(breaking: rule, folder: folder, firstOrderId: 17_100_000_000_000)
        let failed = outcomes.filter { !$0.holds }.map(\.testCase.id)
        if exactly {
            #expect(failed == names, "\(rule)")
        } else {
            #expect(Set(names).isSubset(of: Set(failed)), "\(rule): \(failed)")
        }
    }

    @Test("nothing listening: every case fails with no reply")
    func nothingListening() async throws {
        let poster = CallbackPoster(timeout: 2, connectionsPerHost: 1)
        let battery = CallbackConformance(app: Self.app, productId: "p", firstOrderId: 1, at: Instant(millis: 0))
        let outcomes = await ConformanceCheck(poster: poster).run(battery, url: "http://127.0.0.1:\(try freePort())/callback")
        try await poster.shutdown()
        #expect(outcomes.allSatisfy { !$0.holds && $0.reply.failure == .connectionRefused })
    }
}
