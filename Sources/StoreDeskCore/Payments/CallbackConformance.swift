import Foundation

/// The battery `storedesk callback check URL` sends to a game server's callback handler, and how each
/// reply is graded against the platform's rules. Pure: the network layer sends `cases` in order and
/// hands each reply to `grade`.
///
/// Each run uses fresh numeric order ids (from `firstOrderId`), so it can be re-run against the same
/// server; the second case repeats the first case's order on purpose.
///
///     let battery = CallbackConformance(app: app, productId: "com.example.gems.60", firstOrderId: 17723520001230, at: now)
///     for testCase in battery.cases { let reply = post(testCase.body); battery.grade(testCase, reply) }
public struct CallbackConformance: Sendable {
    /// One callback of the battery.
    public struct Case: Hashable, Sendable, Identifiable {
        /// Short name: `valid`, `repeat`, `sign-upper-case`, …
        public var id: String
        /// The platform's rule this case tests, in a sentence.
        public var rule: String
        /// Whether a conforming handler answers `success`.
        public var expectsSuccess: Bool
        /// The form-encoded body that is POSTed.
        public var body: String
        /// How it was signed, with the key masked: "signed with the app's AppKey k3y-****26", "no sign".
        public var signedWith: String
    }

    /// A case's reply and whether its rule held.
    public struct Outcome: Hashable, Sendable {
        public var testCase: Case
        public var reply: CallbackReply
        public var holds: Bool
        /// Why it holds or not, in a sentence.
        public var explanation: String
    }

    public let app: App
    public let cases: [Case]

    public init(app: App, productId: String, firstOrderId: UInt64, at instant: Instant) {
        self.app = app
        let masked = "the app's AppKey " + Masking.secret(app.appKey)
        var serial = firstOrderId
        func nextOrder() -> String {
            defer { serial += 1 }
            return String(serial)
        }
        let timestamp = String(instant.millis / 1000)
        func fields(_ orderId: String, _ overrides: [String: String] = [:]) -> [ServerCallback.Field] {
            let base: [(String, String)] = [
                ("order_id", orderId), ("payment", ServerCallback.appStorePayment), ("sub_payment", "Sandbox"),
                ("user_id", "storedesk-check"), ("client_id", app.id), ("app", app.name), ("app_id", "s1"),
                ("app_order_id", "check-" + orderId), ("role_id", "r1"), ("product_id", productId),
                ("ext", "{\"check\":" + orderId + "}"), ("timestamp", timestamp),
            ]
            return base.map { ServerCallback.Field($0.0, overrides[$0.0] ?? $0.1) }
        }
        func signed(_ fields: [ServerCallback.Field], key: String? = nil) -> ServerCallback {
            ServerCallback(fields: fields, appKey: key ?? app.appKey)
        }
        func make(_ id: String, _ expectsSuccess: Bool, _ rule: String, _ body: String, _ signedWith: String = masked) -> Case {
            Case(id: id, rule: rule, expectsSuccess: expectsSuccess, body: body, signedWith: signedWith)
        }
        var cases: [Case] = []

        let valid = signed(fields(nextOrder())).body
        cases.append(make("valid", true, "a genuine callback is answered success", valid))
        cases.append(
            make("repeat", true, "the same order_id again is answered success (and granted nothing more)", valid))

        let upper = signed(fields(nextOrder()))
        cases.append(
            make(
                "sign-upper-case", true, "the sign is compared without regard to case (strcasecmp)",
                upper.body.replacingSuffix("sign=" + upper.sign, with: "sign=" + upper.sign.uppercased())))

        let reordered = signed(fields(nextOrder()).reversed())
        cases.append(
            make("field-order", true, "fields in any order verify: the signature sorts them (ksort)", reordered.body))

        let encodings: [(String, String, [String: String])] = [
            ("spaces", "values with spaces verify as http_build_query encodes them (+)", ["role_id": "role 42", "ext": "a b  c"]),
            ("plus", "a + in a value verifies (sent as %2B)", ["ext": "1+1=2 a+b"]),
            ("percent", "a % in a value verifies (sent as %25)", ["ext": "100% sure %41"]),
            ("ampersand-equals", "& and = in values verify (sent as %26 and %3D)", ["app_order_id": "G-1&x=1", "ext": "a=b&c=d"]),
            ("cjk", "CJK text verifies (UTF-8, percent-encoded)", ["role_id": "角色四十二", "ext": "{\"备注\":\"中文扩展\"}"]),
            ("emoji", "emoji verify (4-byte UTF-8, percent-encoded)", ["ext": "🎮😀 gift"]),
        ]
        for (id, rule, overrides) in encodings {
            cases.append(make(id, true, rule, signed(fields(nextOrder(), overrides)).body))
        }

        let changedOrder = nextOrder()
        let changed = signed(fields(changedOrder))
        cases.append(
            make(
                "changed-field", false, "a field changed after signing (product_id) is refused: the old sign no longer matches",
                changed.body.replacingFirst("product_id=", with: "product_id=changed.")))
        cases.append(
            make(
                "retry-after-refusal", true,
                "a refused callback does not use up its order_id: the genuine callback for it is then answered success",
                changed.body))

        let unsigned = signed(fields(nextOrder()))
        cases.append(
            make(
                "no-sign", false, "a body without a sign is refused",
                unsigned.body.replacingSuffix("&sign=" + unsigned.sign, with: ""), "no sign"))

        let otherKey = "not-" + app.appKey
        cases.append(
            make(
                "another-key", false, "a body signed with another key is refused",
                signed(fields(nextOrder()), key: otherKey).body, "another key " + Masking.secret(otherKey)))

        let extOrder = nextOrder()
        let genuine = signed(fields(extOrder))
        let forged = signed(fields(extOrder, ["ext": "{\"grant\":\"everything\"}"]))
        cases.append(
            make(
                "ext-changed", false, "EXT changed in transit is refused: it is signed like every other field",
                forged.body.replacingSuffix("sign=" + forged.sign, with: "sign=" + genuine.sign)))
        self.cases = cases
    }

    /// Whether a case's rule held for this reply.
    public func grade(_ testCase: Case, _ reply: CallbackReply) -> Outcome {
        let holds: Bool
        let explanation: String
        if !reply.wasAnswered {
            holds = false
            explanation = "no reply (" + (reply.failure?.sentence ?? "nothing came back") + "): a handler answers every callback"
        } else if testCase.expectsSuccess {
            holds = reply.isSuccess
            explanation = holds ? "answered success, as it must" : "should be answered success, but " + (reply.problem ?? "it was not")
        } else {
            holds = !reply.isSuccess
            explanation = holds
                ? "refused (\(reply.summary)), as it must be"
                : "answered success to a callback it must refuse: the handler does not check what this case changes"
        }
        return Outcome(testCase: testCase, reply: reply, holds: holds, explanation: explanation)
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with replacement: String) -> String {
        guard hasSuffix(suffix) else { return self }
        return String(dropLast(suffix.count)) + replacement
    }

    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
