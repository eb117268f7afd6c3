import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

/// The scorecard, as text and as JSON.
struct CallbackCheckReport: CommandReport {
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
        return reportText(lines)
    }
}
