import Foundation
import Testing

@testable import StoreDeskCore

/// Base64url without padding, written here independently of the code under test.
private func base64url(_ text: String) -> String {
    Data(text.utf8).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// A JWS shaped like Apple's (ES256 header, x5c chain) with a signature nobody checks.
private func fakeJWS(_ payload: String) -> String {
    base64url(#"{"alg":"ES256","x5c":["MIIB...leaf","MIIB...intermediate"]}"#) + "." + base64url(payload)
        + ".c2lnbmF0dXJlLW5vdC1jaGVja2Vk"
}

private let transactionJSON = #"""
    {"transactionId":"2000000100000031","originalTransactionId":"2000000100000030",
     "productId":"com.storedesk.starvoyage.vip.monthly","subscriptionGroupIdentifier":"starvoyage.vip",
     "bundleId":"com.storedesk.starvoyage","purchaseDate":1775030400000,"originalPurchaseDate":1772352000000,
     "expiresDate":1777622400000,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED",
     "transactionReason":"RENEWAL","environment":"Sandbox","price":30000,"currency":"CNY","quantity":1,
     "offerType":2,"offerIdentifier":"winback-50","offerDiscountType":"PAY_AS_YOU_GO","offerPeriod":"P1M",
     "appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","signedDate":1775030401000,
     "storefront":"CHN","webOrderLineItemId":"2000000012345678"}
    """#

private let renewalJSON = #"""
    {"originalTransactionId":"2000000100000030","productId":"com.storedesk.starvoyage.vip.monthly",
     "autoRenewProductId":"com.storedesk.starvoyage.vip.yearly","autoRenewStatus":1,"expirationIntent":2,
     "isInBillingRetryPeriod":true,"gracePeriodExpiresDate":1779004800000,"priceIncreaseStatus":1,
     "environment":"Sandbox","signedDate":1775030401000,"recentSubscriptionStartDate":1772352000000}
    """#

private func line(transactionKey: String, transaction: String, renewalKey: String, renewal: String) -> String {
    let text = #"""
        {"notificationType":"DID_FAIL_TO_RENEW","subtype":"GRACE_PERIOD",
         "notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20","signedDate":1777622405000,"version":"2.0",
         "data":{"appAppleId":1234567890,"bundleId":"com.storedesk.starvoyage","bundleVersion":"42",
                 "environment":"Sandbox","status":4,"\#(transactionKey)":\#(transaction),"\#(renewalKey)":\#(renewal)}}
        """#
    return text.replacingOccurrences(of: "\n", with: "")
}

@Suite("Notification decoding")
struct NotificationDecodingTests {
    @Test(arguments: [("transactionInfo", "renewalInfo"), ("signedTransactionInfo", "signedRenewalInfo")])
    func decodedNotificationLine(_ keys: (String, String)) throws {
        let event = try SubscriptionEvent.decode(
            jsonLine: line(transactionKey: keys.0, transaction: transactionJSON, renewalKey: keys.1, renewal: renewalJSON))
        #expect(event.notificationType == .didFailToRenew)
        #expect(event.subtype == .gracePeriod)
        #expect(event.appleName == "DID_FAIL_TO_RENEW/GRACE_PERIOD")
        #expect(event.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(event.signedDate == Instant(millis: 1_777_622_405_000))
        #expect(event.appAppleId == 1_234_567_890)
        #expect(event.environment == "Sandbox")
        #expect(event.status == 4)
        #expect(event.provenance == .decodedJSON)
        let transaction = try #require(event.transaction)
        #expect(transaction.transactionId == "2000000100000031")
        #expect(transaction.originalTransactionId == "2000000100000030")
        #expect(transaction.subscriptionGroupIdentifier == "starvoyage.vip")
        #expect(transaction.purchaseDate == day("2026-04-01T08:00:00Z"))
        #expect(transaction.expiresDate == day("2026-05-01T08:00:00Z"))
        #expect(transaction.offerType == .promotional)
        #expect(transaction.offerIdentifier == "winback-50")
        #expect(transaction.offerDiscountType == .payAsYouGo)
        #expect(transaction.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(transaction.price == 30000)
        let renewal = try #require(event.renewal)
        #expect(renewal.autoRenews == true)
        #expect(renewal.autoRenewProductId == "com.storedesk.starvoyage.vip.yearly")
        #expect(renewal.expirationIntent == .billingError)
        #expect(renewal.isInBillingRetryPeriod == true)
        #expect(renewal.gracePeriodExpiresDate == day("2026-05-17T08:00:00Z"))
        // And it folds: in grace on May 2.
        let info = SubscriptionTimeline(events: [event]).snapshot(at: day("2026-05-02T08:00:00Z")).latest
        #expect(info?.state == .gracePeriod)
        #expect(info?.pendingProductId == "com.storedesk.starvoyage.vip.yearly")
    }

    @Test func rawSignedPayloadLine() throws {
        let inner = line(
            transactionKey: "signedTransactionInfo", transaction: "\"" + fakeJWS(transactionJSON) + "\"",
            renewalKey: "signedRenewalInfo", renewal: "\"" + fakeJWS(renewalJSON) + "\"")
        let raw = #"{"signedPayload":"\#(fakeJWS(inner))"}"#
        let event = try SubscriptionEvent.decode(jsonLine: raw)
        #expect(event.provenance == .unverifiedJWS)
        #expect(event.appleName == "DID_FAIL_TO_RENEW/GRACE_PERIOD")
        #expect(event.transaction?.transactionId == "2000000100000031")
        #expect(event.renewal?.gracePeriodExpiresDate == day("2026-05-17T08:00:00Z"))
        let plain = try SubscriptionEvent.decode(
            jsonLine: line(
                transactionKey: "transactionInfo", transaction: transactionJSON, renewalKey: "renewalInfo",
                renewal: renewalJSON))
        var same = event
        same.provenance = plain.provenance
        #expect(same == plain)
    }

    @Test func unverifiedJWSParts() throws {
        let jws = try UnverifiedJWS(compact: fakeJWS(#"{"a":1}"#))
        #expect(jws.algorithm == "ES256")
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"a":1}"#)
        #expect(jws.signature == "c2lnbmF0dXJlLW5vdC1jaGVja2Vk")
        #expect(UnverifiedJWS.base64URLEncode(Data([0xFB, 0xFF, 0xFE])) == "-__-")
        #expect(UnverifiedJWS.base64URLDecode("-__-") == Data([0xFB, 0xFF, 0xFE]))
        #expect(UnverifiedJWS.base64URLDecode("abcde") == nil)
    }

    /// The line an import stores is written field by field (`canonicalJSONLine`): it must be what
    /// `JSONEncoder` (sorted keys, slashes as they are) writes, byte for byte, every field set or none,
    /// whatever a string holds.
    @Test func theStoredLineIsWhatJSONEncoderWrites() throws {
        let odd = "a\"b\\c/d\u{0}\u{1F}\u{8}\u{9}\u{A}\u{C}\u{D}\u{7F}\u{85}\u{2028} é 黄 😀"
        let transaction = TransactionInfo(
            transactionId: odd, originalTransactionId: "2000000100000201", productId: odd, subscriptionGroupIdentifier: odd,
            bundleId: odd, purchaseDate: Instant(millis: 1), originalPurchaseDate: Instant(millis: -2),
            expiresDate: Instant(millis: .max), revocationDate: Instant(millis: .min), revocationReason: RevocationReason(rawValue: 1),
            offerType: OfferType(rawValue: 2), offerIdentifier: odd, offerDiscountType: OfferDiscountType(rawValue: odd),
            offerPeriod: "P1W", environment: "Sandbox", appAccountToken: odd, transactionReason: "RENEWAL",
            inAppOwnershipType: "FAMILY_SHARED", type: odd, price: -9990, currency: "CNY", storefront: "CHN", quantity: 3,
            isUpgraded: true, webOrderLineItemId: odd, signedDate: Instant(millis: 1_790_000_000_000))
        let renewal = RenewalInfo(
            originalTransactionId: odd, productId: odd, autoRenewProductId: odd, autoRenewStatus: 0,
            expirationIntent: ExpirationIntent(rawValue: 2), isInBillingRetryPeriod: false, gracePeriodExpiresDate: Instant(millis: 7),
            priceIncreaseStatus: 1, offerType: OfferType(rawValue: 3), offerIdentifier: odd, offerDiscountType: OfferDiscountType(rawValue: "FREE_TRIAL"),
            environment: odd, recentSubscriptionStartDate: Instant(millis: 8), renewalDate: Instant(millis: 9), renewalPrice: Int64.max,
            currency: odd, signedDate: Instant(millis: 10))
        let full = SubscriptionEvent(
            notificationType: .didRenew, subtype: NotificationSubtype(rawValue: odd), notificationUUID: odd,
            signedDate: Instant(millis: -5), version: odd, appAppleId: .max, bundleId: odd, bundleVersion: odd, environment: odd,
            status: .min, transaction: transaction, renewal: renewal)
        let bare = SubscriptionEvent(
            notificationType: NotificationType(rawValue: "TEST"), notificationUUID: "u", signedDate: Instant(millis: 0), version: nil)
        var plain = full
        plain.renewal = RenewalInfo()
        plain.transaction = TransactionInfo(
            transactionId: "1", originalTransactionId: "1", productId: "p", purchaseDate: Instant(millis: 0), type: nil, quantity: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for event in [full, bare, plain] {
            #expect(event.canonicalJSONLine() == String(decoding: try encoder.encode(event), as: UTF8.self))
            #expect(try SubscriptionEvent.decode(jsonLine: event.canonicalJSONLine()) == event)
        }
    }

    /// The JWS parts are decoded and encoded by StoreDesk's own loops: they give Foundation's bytes and
    /// text at every length, padded or not, and refuse what base64url does not have.
    @Test func base64URLDecodingGivesFoundationsBytesAtEveryLength() throws {
        for length in 0..<100 {
            let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: ($0 &* 7919 &+ length &* 31) ^ ($0 >> 1)) })
            #expect(UnverifiedJWS.base64URLDecode(UnverifiedJWS.base64URLEncode(bytes)) == bytes)
            let padded = bytes.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(UnverifiedJWS.base64URLDecode(padded) == bytes)
            // Encoding too: StoreDesk's own loop writes Foundation's text, unpadded.
            #expect(UnverifiedJWS.base64URLEncode(bytes) == padded.replacingOccurrences(of: "=", with: ""))
            #expect(Data(base64Encoded: bytes.base64EncodedString()) == bytes)
        }
        for bad in ["ab+c", "ab/c", "a=bc", "ab c", "abc\n", "ab%d", "=abc", "abcde", "ab===", "\u{E9}bcd"] {
            #expect(UnverifiedJWS.base64URLDecode(bad) == nil, "\(bad)")
        }
    }

    /// Lines (and stored notifications read back) are trimmed by StoreDesk's own loop over the scalars:
    /// it gives what Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)` gives.
    @Test func trimmingGivesFoundationsText() {
        let texts = [
            "", " ", "\n", "\r\n", " \t\r\n ", "{}", " {} ", "\r\n{\"a\":1}\r\n", "\u{00A0}{}\u{2028}", "\u{3000}x\u{3000}y\u{3000}",
            " \u{301}{}", "{}\u{301} ", "é ", " 🇨🇳", "a\u{200B}", "\u{85}{}\u{85}", "x",
        ]
        for text in texts {
            #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
        }
    }

    @Test(arguments: [
        ("{\"notificationType\": ", "invalidJSON"),
        ("[1, 2, 3]", "notAnObject"),
        ("\"a string\"", "notAnObject"),
        ("42", "notAnObject"),
        ("not json at all", "invalidJSON"),
        (#"{"notificationType":"DID_RENEW","signedDate":1}"#, "missingField:notificationUUID"),
        (#"{"notificationType":"DID_RENEW","notificationUUID":"x","signedDate":"yesterday"}"#, "invalidValue:signedDate"),
        (#"{"notificationType":"DID_RENEW","notificationUUID":7,"signedDate":1}"#, "wrongType:notificationUUID"),
        (#"{"signedPayload":"only.two"}"#, "malformedJWS"),
        (#"{"signedPayload":"a.!!!.c"}"#, "malformedJWS"),
        (#"{"signedPayload":42}"#, "wrongType:signedPayload"),
        (#"{"notificationType":"DID_RENEW","notificationUUID":"x","signedDate":1,"data":{"signedTransactionInfo":"x.y"}}"#, "malformedJWS"),
        (#"{"notificationType":"DID_RENEW","notificationUUID":"x","signedDate":1,"data":{"transactionInfo":{"transactionId":"1"}}}"#, "missingField:data.transactionInfo.originalTransactionId"),
        ("   ", "emptyLine"),
    ])
    func malformedInputThrowsInsteadOfCrashing(_ input: (String, String)) {
        do {
            _ = try SubscriptionEvent.decode(jsonLine: input.0)
            Issue.record("decoded \(input.0)")
        } catch let error as SubscriptionDecodingError {
            let summary: String
            switch error {
            case .emptyLine: summary = "emptyLine"
            case .invalidJSON: summary = "invalidJSON"
            case .notAnObject: summary = "notAnObject"
            case .malformedJWS: summary = "malformedJWS"
            case .missingField(let field): summary = "missingField:" + field
            case .wrongType(let field, _): summary = field.isEmpty ? "wrongType" : "wrongType:" + field
            case .invalidValue(let field, _): summary = "invalidValue:" + field
            }
            #expect(summary == input.1, "\(error)")
            #expect(!error.description.isEmpty)
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func jsonLinesKeepGoingPastBadLines() {
        let good = line(transactionKey: "transactionInfo", transaction: transactionJSON, renewalKey: "renewalInfo", renewal: renewalJSON)
        let text = [good, "", "{broken", #"{"signedPayload":"x"}"#, good].joined(separator: "\n")
        let read = SubscriptionEvent.decodeJSONLines(text)
        #expect(read.events.count == 2)
        #expect(read.failures.map(\.line) == [3, 4])
        #expect(SubscriptionTimeline(events: read.events).duplicatesSkipped == 1)
    }

    @Test func isoDatesAndUnknownTypesStillDecode() throws {
        let text = #"""
            {"notificationType":"ONE_TIME_CHARGE","notificationUUID":"n1","signedDate":"2026-03-01T08:00:00Z",
             "data":{"transactionInfo":{"transactionId":"1","originalTransactionId":"1","productId":"p",
             "purchaseDate":"2026-03-01T08:00:00Z"}}}
            """#
        let event = try SubscriptionEvent.decode(jsonLine: text.replacingOccurrences(of: "\n", with: ""))
        #expect(event.notificationType.rawValue == "ONE_TIME_CHARGE")
        #expect(!NotificationType.known.contains(event.notificationType))
        #expect(event.subtype == nil)
        #expect(event.signedDate == day("03-01"))
    }

    @Test func encodesApplesFieldNames() throws {
        var sim = Fixture.simulation()
        try sim.purchase(Fixture.basic, at: day("03-01"), offer: .freeTrial(.week))
        let text = try #require(try sim.timeline.events.first?.jsonLine())
        for field in [
            "\"notificationType\":\"SUBSCRIBED\"", "\"subtype\":\"INITIAL_BUY\"", "\"notificationUUID\"",
            "\"signedDate\":1772352000000", "\"transactionInfo\"", "\"renewalInfo\"", "\"offerType\":1",
            "\"offerDiscountType\":\"FREE_TRIAL\"", "\"offerPeriod\":\"P1W\"", "\"autoRenewStatus\":1",
            "\"expiresDate\":1772956800000", "\"subscriptionGroupIdentifier\":\"starvoyage.vip\"",
        ] {
            #expect(text.contains(field), "\(field) in \(text)")
        }
        #expect(!text.contains("provenance"))
    }
}
