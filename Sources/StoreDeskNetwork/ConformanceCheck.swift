import Foundation
import StoreDeskCore

/// Sends the conformance battery to a game server's callback URL, one case after another (the repeat
/// must follow the callback it repeats), and grades every reply.
///
///     let outcomes = await ConformanceCheck(poster: poster).run(battery, url: url)
///     outcomes.allSatisfy(\.holds)
public struct ConformanceCheck: Sendable {
    public var poster: CallbackPoster

    public init(poster: CallbackPoster) { self.poster = poster }

    public func run(_ battery: CallbackConformance, url: String) async -> [CallbackConformance.Outcome] {
        var outcomes: [CallbackConformance.Outcome] = []
        for testCase in battery.cases {
            let reply = await poster.post(testCase.body, to: url)
            outcomes.append(battery.grade(testCase, reply))
        }
        return outcomes
    }
}
