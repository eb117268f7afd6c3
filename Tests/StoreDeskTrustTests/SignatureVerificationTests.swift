import Crypto
import Foundation
import StoreDeskCore
import SwiftASN1
import Testing
import X509

@testable import StoreDeskTrust

/// Chains made at test time with swift-certificates, and the notifications they sign.
enum Signed {
    static let app = App(
        id: "1001", name: "Star Voyage", bundleId: "com.storedesk.starvoyage", appKey: "secret", currencyPerYuan: 10,
        restoreOwnership: .transfer, gracePeriodDays: 16, appleAppId: 6_741_000_101, environments: .both)
    static let product = Product(
        id: "com.storedesk.starvoyage.vip.monthly", appId: "1001", name: "VIP", type: .autoRenewable, priceCents: 3000,
        currency: "CNY", subscriptionGroup: "starvoyage.vip", period: .oneMonth)
    static let catalogue = NotificationImport.Catalogue(products: [product], apps: [app])
    static let signedDate = Instant(millis: 1_785_920_400_000)  // 2026-08-05
    static let wallClock = Instant(millis: 1_790_000_000_000)

    /// One shared chain, made once.
    private static let made = Result { try SigningChain(name: "Test App Store") }
    static var chain: SigningChain { get throws { try made.get() } }

    static func event(
        environment: String = "Production", bundleId: String = "com.storedesk.starvoyage", appAppleId: Int64? = 6_741_000_101,
        signedDate: Instant = signedDate, uuid: String = "f435876c-0770-4f70-a5d3-70f508088bff"
    ) -> SubscriptionEvent {
        SubscriptionEvent(
            notificationType: .subscribed, subtype: .initialBuy, notificationUUID: uuid, signedDate: signedDate,
            appAppleId: appAppleId, bundleId: bundleId, environment: environment, status: 1,
            transaction: TransactionInfo(
                transactionId: "2000000100000201", originalTransactionId: "2000000100000201", productId: product.id,
                bundleId: bundleId, purchaseDate: signedDate, originalPurchaseDate: signedDate,
                expiresDate: Instant(millis: signedDate.millis + 30 * 86_400_000)),
            renewal: RenewalInfo(originalTransactionId: "2000000100000201", productId: product.id, autoRenewStatus: 1))
    }

    static func verifier(_ roots: SigningChain...) throws -> AppStoreSignatureVerifier {
        try AppStoreSignatureVerifier(roots: roots.map { try TrustedRoot($0.root) })
    }

    static func trust(_ verifier: AppStoreSignatureVerifier?, allowUnverified: Bool = false) -> NotificationTrust {
        NotificationTrust(verifier: verifier, allowUnverified: allowUnverified, now: wallClock)
    }

    /// Judges a line as `events import` does: decode, signatures, catalogue and clocks, the app.
    static func judge(_ text: String, trust: NotificationTrust, catalogue: NotificationImport.Catalogue = catalogue)
        -> NotificationImport.Judged.Verdict
    {
        NotificationImport.judge(
            line: 1, text: text[...], trust: trust, catalogue: catalogue, clock: wallClock, wallClock: wallClock
        ).verdict
    }

    /// The reason a line was refused or rejected, or "imported as <provenance>".
    static func outcome(_ verdict: NotificationImport.Judged.Verdict) -> String {
        switch verdict {
        case .unreadable(let reason): "unreadable: \(reason)"
        case .refused(let reason, _): reason
        case .event(let event, _, _, let problem): problem?.reason ?? "imported as \(event.provenance.rawValue)"
        }
    }

    /// A compact JWS of `payload` under `chain` with a header of our choosing.
    static func jws(_ payload: [String: Any], chain: SigningChain? = nil, alg: String? = "ES256", x5c: [String]?? = .none,
                    key: P256.Signing.PrivateKey? = nil) throws -> UnverifiedJWS {
        let json = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
        return try UnverifiedJWS(compact: try (chain ?? Signed.chain).sign(json, alg: alg, x5c: x5c, key: key))
    }
}

@Suite struct SignatureVerificationTests {
    let payload: [String: Any] = ["signedDate": Signed.signedDate.millis, "bundleId": "com.storedesk.starvoyage"]

    @Test func aNotificationSignedByATrustedChainVerifiesAndNamesItsSigner() throws {
        let chain = try Signed.chain
        let verifier = try Signed.verifier(chain)
        let line = try chain.signedNotificationLine(Signed.event())
        let verdict = Signed.judge(line, trust: Signed.trust(verifier))
        #expect(Signed.outcome(verdict) == "imported as verified")
        guard case .event(let event, _, let payload, _) = verdict else { return }
        let root = try TrustedRoot(chain.root)
        #expect(event.signer?.rootSHA256 == root.sha256)
        #expect(event.signer?.leafSubject == chain.leaf.subject.description)
        #expect(event.signer?.leafSerial == AppStoreSignatureVerifier.serial(chain.leaf.serialNumber))
        #expect(event.signer?.isApple == false)
        #expect(event.trustDescription.hasPrefix("verified: signed by '\(chain.leaf.subject)'"))
        // What the store keeps is the decoded notification, not the JWS.
        #expect(try SubscriptionEvent.decode(jsonLine: payload).transaction?.transactionId == "2000000100000201")
    }

    @Test func aTamperedPayloadFailsTheSignature() throws {
        let chain = try Signed.chain
        let jws = try Signed.jws(payload)
        var tampered = jws
        let forged = UnverifiedJWS.base64URLEncode(try JSONSerialization.data(
            withJSONObject: ["signedDate": Signed.signedDate.millis, "bundleId": "com.storedesk.other"], options: [.sortedKeys]))
        let compact = String(jws.headerSegment) + "." + forged + "." + jws.signature
        tampered = try UnverifiedJWS(compact: compact)
        let result = try Signed.verifier(chain).verify(tampered, at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.signature, "the ES256 signature does not match the leaf's key")))
    }

    @Test func aChainToARootNotConfiguredIsRefused() throws {
        let other = try SigningChain(name: "Someone Else")
        let result = try Signed.verifier(other).verify(try Signed.jws(payload), at: Signed.signedDate)
        #expect(failure(result)?.check == .untrustedRoot)
        #expect(failure(result)?.reason.contains("does not lead to a trusted root") == true)
    }

    @Test func aRootSmuggledInAsTheThirdCertificateIsNeverTrusted() throws {
        let chain = try Signed.chain
        // The attacker's chain carries its own root as x5c[2]; the store trusts only the real one.
        let attacker = try SigningChain(name: "Test App Store")
        let jws = try Signed.jws(payload, chain: attacker)
        let result = try Signed.verifier(chain).verify(jws, at: Signed.signedDate)
        #expect(failure(result)?.check == .untrustedRoot)
        #expect(failure(result)?.reason.contains("x5c[2] is never trusted for being in the header") == true)
        // And a good chain with someone else's root as x5c[2] still verifies: x5c[2] is not used at all.
        let x5c = [try SigningChain.x5cEntry(chain.leaf), try SigningChain.x5cEntry(chain.intermediate),
                   try SigningChain.x5cEntry(attacker.root)]
        let honest = try Signed.jws(payload, x5c: x5c)
        #expect((try? Signed.verifier(chain).verify(honest, at: Signed.signedDate).get()) != nil)
    }

    @Test func anIntermediateWithoutTheWWDROIDIsRefused() throws {
        let chain = try SigningChain(.init(name: "No WWDR", intermediateOID: false))
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, chain: chain), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.intermediateOID, "the intermediate lacks Apple's WWDR OID 1.2.840.113635.100.6.2.1")))
    }

    @Test func aLeafWithoutTheReceiptSigningOIDIsRefused() throws {
        let chain = try SigningChain(.init(name: "No Receipt OID", leafOID: false))
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, chain: chain), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.leafOID, "the leaf lacks Apple's receipt-signing OID 1.2.840.113635.100.6.11.1")))
    }

    @Test func aLeafExpiredAtTheSigningDateIsRefusedAndValidBeforeItIsNot() throws {
        // The leaf was valid through 2025; the chain itself runs to 2050.
        let chain = try SigningChain(.init(
            name: "Expired Leaf",
            leafValidity: Date(timeIntervalSince1970: 1_577_836_800)...Date(timeIntervalSince1970: 1_767_225_600)))
        let verifier = try Signed.verifier(chain)
        let late = verifier.verify(try Signed.jws(payload, chain: chain), at: Signed.signedDate)
        #expect(failure(late)?.check == .validity)
        #expect(failure(late)?.reason.contains("is not valid at the signing date 2026-08-05T") == true)
        // Signed in 2025, the same chain verifies: validity is judged at signedDate, not today.
        let early = verifier.verify(try Signed.jws(payload, chain: chain), at: Instant(millis: 1_750_000_000_000))
        #expect((try? early.get()) != nil)
    }

    @Test func twoCertificatesAreNotAnAppleChain() throws {
        let chain = try Signed.chain
        let two = Array(try chain.x5c().prefix(2))
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, x5c: two), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.chainLength, "x5c holds 2 certificates, not 3 (leaf, intermediate, root)")))
    }

    @Test func fourCertificatesAreNotAnAppleChainEither() throws {
        let chain = try Signed.chain
        let four = try chain.x5c() + [try SigningChain.x5cEntry(chain.root)]
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, x5c: four), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.chainLength, "x5c holds 4 certificates, not 3 (leaf, intermediate, root)")))
    }

    @Test func anES256SignatureIsRawRAndSNotDER() throws {
        let chain = try Signed.chain
        let jws = try Signed.jws(payload)
        // The same key's signature over the same input, DER-encoded as X.509 keeps it: JWS wants raw r‖s.
        let signature = try chain.leafKey.signature(for: Data(jws.signingInput.utf8))
        let der = try UnverifiedJWS(compact: String(jws.signingInput) + "." + UnverifiedJWS.base64URLEncode(signature.derRepresentation))
        #expect(try Signed.verifier(chain).verify(der, at: Signed.signedDate)
            == .failure(SignatureFailure(.signature, "the signature is not an ES256 r‖s pair of 64 bytes")))
        let raw = try UnverifiedJWS(compact: String(jws.signingInput) + "." + UnverifiedJWS.base64URLEncode(signature.rawRepresentation))
        #expect((try? Signed.verifier(chain).verify(raw, at: Signed.signedDate).get()) != nil)
    }

    @Test func aPartWithoutASignedDateIsValidatedAtTheCurrentTime() throws {
        // The leaf is valid through 2025. The notification was signed in mid-2025, while it was valid; its
        // transaction info carries no signedDate, so it is judged now (the wall clock, 2026-09), when the
        // leaf has expired.
        let chain = try SigningChain(.init(
            name: "Leaf Through 2025",
            leafValidity: Date(timeIntervalSince1970: 1_577_836_800)...Date(timeIntervalSince1970: 1_767_225_600)))
        let trust = Signed.trust(try Signed.verifier(chain))
        let event = Signed.event(signedDate: Instant(millis: 1_750_000_000_000))
        var transaction = try #require(event.transaction)
        transaction.environment = "Production"
        transaction.signedDate = nil
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let undated = try chain.sign(try encoder.encode(transaction))
        let dated = try chain.signedNotificationLine(event)
        #expect(Signed.outcome(Signed.judge(dated, trust: trust)) == "imported as verified")
        let line = try chain.signedNotificationLine(event) { payload in
            var data = payload["data"] as? [String: Any] ?? [:]
            data["signedTransactionInfo"] = undated
            payload["data"] = data
        }
        let reason = Signed.outcome(Signed.judge(line, trust: trust))
        #expect(reason.hasPrefix("signedTransactionInfo: certificate '"), "\(reason)")
        #expect(reason.contains("is not valid at the signing date \(Signed.wallClock.iso8601)"), "\(reason)")
    }

    /// The line and the notification's payload are written as a JSON writer with sorted keys writes them (the
    /// infos' JWS put in place of their marks, not through the writer): nothing absent written as null, the
    /// infos whole, the same header on every signature.
    @Test func aSignedLineIsTheJSONAWriterWouldWrite() throws {
        let chain = try Signed.chain
        let line = try chain.signedNotificationLine(Signed.event())
        let outer = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        let signed = try #require(outer["signedPayload"])
        #expect(line == "{\"signedPayload\":\"\(signed)\"}")
        let jws = try UnverifiedJWS(compact: signed)
        let object = try #require(try JSONSerialization.jsonObject(with: jws.payload) as? [String: Any])
        #expect(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) == jws.payload)
        let data = try #require(object["data"] as? [String: Any])
        #expect(Set(object.keys) == ["data", "notificationType", "notificationUUID", "signedDate", "subtype", "version"])
        #expect(Set(data.keys) == ["appAppleId", "bundleId", "environment", "signedRenewalInfo", "signedTransactionInfo", "status"])
        let infos = [data["signedTransactionInfo"], data["signedRenewalInfo"]].compactMap { $0 as? String }
        #expect(infos.count == 2)
        for info in infos {
            let inner = try UnverifiedJWS(compact: info)
            #expect(chain.isSignatureValid(inner) && inner.headerSegment == jws.headerSegment)
        }
        #expect(chain.isSignatureValid(jws))
    }

    @Test func aRenewalInfoIsCheckedForItsEnvironmentOnly() throws {
        let chain = try Signed.chain
        let trust = Signed.trust(try Signed.verifier(chain))
        // A renewal info signed in Sandbox inside a Production notification is refused...
        var sandboxRenewal = Signed.event()
        sandboxRenewal.renewal?.environment = "Sandbox"
        #expect(Signed.outcome(Signed.judge(try chain.signedNotificationLine(sandboxRenewal), trust: trust))
            == "signedRenewalInfo: environment Sandbox is not the notification's (Production)")
        // ...but it carries no bundleId or appAppleId and none is asked of it (Apple checks its environment only).
        let line = try chain.signedNotificationLine(Signed.event()) { payload in
            var data = payload["data"] as? [String: Any] ?? [:]
            data["signedRenewalInfo"] = renewalWithoutIdentity
            payload["data"] = data
        }
        #expect(Signed.outcome(Signed.judge(line, trust: trust)) == "imported as verified")
    }

    /// A renewal info as Apple signs it: environment, dates and products, no bundle or app id.
    private var renewalWithoutIdentity: String {
        let json: [String: Any] = [
            "originalTransactionId": "2000000100000201", "productId": Signed.product.id, "autoRenewProductId": Signed.product.id,
            "autoRenewStatus": 1, "environment": "Production", "signedDate": Signed.signedDate.millis,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]),
            let signed = try? Signed.chain.sign(data)
        else { return "" }
        return signed
    }

    @Test func algNoneIsRefused() throws {
        let chain = try Signed.chain
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, alg: "none"), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.algorithm, "alg is 'none', not ES256")))
    }

    @Test func aHeaderWithoutX5cIsRefused() throws {
        let chain = try Signed.chain
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, x5c: .some(nil)), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.format, "the JWS header has no x5c certificate chain")))
    }

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        let chain = try Signed.chain
        let jws = try Signed.jws(payload, key: P256.Signing.PrivateKey())
        let result = try Signed.verifier(chain).verify(jws, at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.signature, "the ES256 signature does not match the leaf's key")))
    }

    @Test func aCertificateThatCannotBeReadIsRefused() throws {
        let chain = try Signed.chain
        var x5c = try chain.x5c()
        x5c[0] = "YWJj"  // "abc"
        let result = try Signed.verifier(chain).verify(try Signed.jws(payload, x5c: x5c), at: Signed.signedDate)
        #expect(result == .failure(SignatureFailure(.certificate, "x5c[0] is not a certificate (base64 DER)")))
    }

    @Test func aNestedTransactionSignedByAnUntrustedChainRefusesTheWholeLine() throws {
        let chain = try Signed.chain
        let untrusted = try SigningChain(name: "Untrusted")
        let line = try chain.signedNotificationLine(Signed.event(), infoChain: untrusted)
        let reason = Signed.outcome(Signed.judge(line, trust: Signed.trust(try Signed.verifier(chain))))
        #expect(reason.hasPrefix("signedTransactionInfo: the chain does not lead to a trusted root"))
    }

    @Test func anotherAppsBundleIsRejectedAfterTheSignatureVerifies() throws {
        let chain = try Signed.chain
        let line = try chain.signedNotificationLine(Signed.event(bundleId: "com.example.other"))
        let reason = Signed.outcome(Signed.judge(line, trust: Signed.trust(try Signed.verifier(chain))))
        #expect(reason == "bundleId 'com.example.other' is not app 1001's (com.storedesk.starvoyage)")
    }

    @Test func productionNeedsTheAppsAppleIdAndEnvironmentsFollowTheApp() throws {
        let chain = try Signed.chain
        let trust = Signed.trust(try Signed.verifier(chain))
        let wrongId = try chain.signedNotificationLine(Signed.event(appAppleId: 99))
        #expect(Signed.outcome(Signed.judge(wrongId, trust: trust)) == "appAppleId 99 is not app 1001's Apple ID (6741000101)")
        // Sandbox takes no Apple ID check, as Apple's verifier for Sandbox.
        let sandbox = try chain.signedNotificationLine(Signed.event(environment: "Sandbox", appAppleId: nil))
        #expect(Signed.outcome(Signed.judge(sandbox, trust: trust)) == "imported as verified")
        // An app limited to Production refuses Sandbox data; one with no Apple ID cannot check Production.
        var limited = Signed.app
        limited.environments = .production
        let productionOnly = NotificationImport.Catalogue(products: [Signed.product], apps: [limited])
        #expect(Signed.outcome(Signed.judge(sandbox, trust: trust, catalogue: productionOnly))
            == "appAppleId (none) is not app 1001's Apple ID (6741000101)")
        var noId = Signed.app
        noId.appleAppId = nil
        let unknown = NotificationImport.Catalogue(products: [Signed.product], apps: [noId])
        let production = try chain.signedNotificationLine(Signed.event())
        #expect(Signed.outcome(Signed.judge(production, trust: trust, catalogue: unknown)).hasPrefix(
            "app 1001 has no Apple ID to check a Production notification against"))
        var sandboxOnly = Signed.app
        sandboxOnly.environments = .sandbox
        #expect(Signed.outcome(Signed.judge(production, trust: trust, catalogue: .init(products: [Signed.product], apps: [sandboxOnly])))
            == "environment Production: app 1001 takes Sandbox only (storedesk apps set 1001 --environment both)")
    }

    @Test func withNoTrustedRootASignedLineIsRefusedUnlessTheOperatorAllowsIt() throws {
        let chain = try Signed.chain
        let line = try chain.signedNotificationLine(Signed.event())
        #expect(Signed.outcome(Signed.judge(line, trust: Signed.trust(nil)))
            == "no trusted root: add Apple Root CA G3 with storedesk trust add")
        #expect(Signed.outcome(Signed.judge(line, trust: Signed.trust(nil, allowUnverified: true))) == "imported as unverified_jws")
        // A decoded line needs no root and stays marked decoded.
        let decoded = try Signed.event().jsonLine()
        #expect(Signed.outcome(Signed.judge(decoded, trust: Signed.trust(nil))) == "imported as decoded_json")
    }

    /// `--allow-unverified` takes a signature it cannot check, never what is no signature: `alg` other than
    /// ES256 (`none` with no signature at all), no x5c or an empty one, or a signature that cannot be ES256's
    /// is refused with the check, the field named, as with a trusted root.
    @Test func allowUnverifiedTakesOnlyWhatIsShapedAsAnES256Signature() throws {
        let chain = try Signed.chain
        let line = try chain.signedNotificationLine(Signed.event())
        let compact = try #require(
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["signedPayload"] as? String)
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func header(_ json: String) -> String { UnverifiedJWS.base64URLEncode(Data(json.utf8)) }
        func relined(_ header: String, signature: String) -> String {
            "{\"signedPayload\":\"" + header + "." + parts[1] + "." + signature + "\"}"
        }
        let x5c = "[\"" + (try chain.x5c()).joined(separator: "\",\"") + "\"]"
        let cases = [
            (relined(header("{\"alg\":\"none\"}"), signature: ""), "signedPayload: the JWS header has no x5c certificate chain"),
            (relined(header("{\"alg\":\"none\",\"x5c\":[]}"), signature: ""), "signedPayload: alg is 'none', not ES256"),
            (relined(header("{\"alg\":\"none\",\"x5c\":\(x5c)}"), signature: ""), "signedPayload: alg is 'none', not ES256"),
            (relined(header("{\"alg\":\"HS256\",\"x5c\":\(x5c)}"), signature: parts[2]), "signedPayload: alg is 'HS256', not ES256"),
            (relined(header("{\"alg\":\"ES256\",\"x5c\":[]}"), signature: parts[2]),
             "signedPayload: x5c holds 0 certificates, not 3 (leaf, intermediate, root)"),
            (relined(parts[0], signature: ""), "signedPayload: the signature is not an ES256 r‖s pair of 64 bytes"),
        ]
        for trust in [Signed.trust(nil, allowUnverified: true), Signed.trust(try Signed.verifier(chain), allowUnverified: true)] {
            for (text, reason) in cases {
                #expect(Signed.outcome(Signed.judge(text, trust: trust)) == reason)
            }
        }
        // What is shaped as Apple signs still goes in unverified, and verified with the root.
        #expect(Signed.outcome(Signed.judge(line, trust: Signed.trust(nil, allowUnverified: true))) == "imported as unverified_jws")
        #expect(Signed.outcome(Signed.judge(line, trust: Signed.trust(try Signed.verifier(chain), allowUnverified: true)))
            == "imported as verified")
    }

    @Test func storeKitTestingDataIsDecodedUnverifiedAndMarkedSoAsApplesRuleSays() throws {
        let chain = try Signed.chain
        // Xcode signs with a one-certificate x5c; Apple's library skips verification for Xcode data.
        let xcode = try SigningChain(name: "Xcode")
        let line = try xcode.signedNotificationLine(Signed.event(environment: "Xcode", appAppleId: nil))
        let trust = Signed.trust(try Signed.verifier(chain))
        #expect(Signed.outcome(Signed.judge(line, trust: trust)) == "imported as storekit_testing")
        // ...but only for an app that takes Sandbox.
        var production = Signed.app
        production.environments = .production
        #expect(Signed.outcome(Signed.judge(line, trust: trust, catalogue: .init(products: [Signed.product], apps: [production])))
            .hasPrefix("appAppleId (none) is not app 1001's Apple ID"))
    }

    @Test func eachDistinctChainIsValidatedOnceWhateverTheNumberOfSignatures() throws {
        let chain = try Signed.chain
        let verifier = try Signed.verifier(chain)
        let lines = try (0..<50).map { index in
            try chain.signedNotificationLine(Signed.event(uuid: "uuid-\(index)"))
        }
        DispatchQueue.concurrentPerform(iterations: lines.count) { index in
            _ = Signed.judge(lines[index], trust: Signed.trust(verifier))
        }
        #expect(verifier.chainValidations == 1)
    }

    @Test func aRootFileThatIsNotACertificateIsRefusedInOneLine() throws {
        let chain = try Signed.chain
        #expect(throws: TrustRootFile.Problem.self) { try TrustRootFile.root(from: Data("hello".utf8)) }
        do {
            _ = try TrustRootFile.root(from: Data("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n".utf8))
            Issue.record("a PEM block holding no certificate was taken")
        } catch {
            #expect(error.reason == "not a certificate: its PEM block is not an X.509 certificate")
        }
        // An intermediate is not a root.
        var serializer = DER.Serializer()
        try serializer.serialize(chain.intermediate)
        do {
            _ = try TrustRootFile.root(from: Data(serializer.serializedBytes))
            Issue.record("an intermediate was taken as a root")
        } catch {
            #expect(error.reason.hasPrefix("not a root certificate:"))
        }
        // PEM and DER of the same root are the same root.
        let pem = try TrustRootFile.root(from: Data(try chain.rootPEM().utf8))
        #expect(pem == (try TrustedRoot(chain.root)))
    }

    private func failure(_ result: Result<Signer, SignatureFailure>) -> SignatureFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }
}
