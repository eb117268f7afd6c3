import Foundation
import StoreDeskCore
import Testing

/// Stored text shown on a terminal shows its control characters escaped.
@Suite struct ControlCharactersTests {
    @Test func escapeSequencesAndLineBreaksAreShownNotSent() {
        #expect(ControlCharacters.escaped("\u{1B}]0;PWNED\u{07}\u{1B}[31mRED") == "\\e]0;PWNED\\a\\e[31mRED")
        #expect(ControlCharacters.escaped("a\nb\tc\r") == "a\\nb\\tc\\r")
        #expect(ControlCharacters.escaped("\u{0}\u{7F}\u{9B}2J") == "\\x00\\x7F\\u{9B}2J")
        #expect(ControlCharacters.escaped("abc\u{202E}gpj.exe") == "abc\\u{202E}gpj.exe")
        #expect(ControlCharacters.escaped("\r\n") == "\\r\\n")
    }

    @Test func ordinaryTextIsKept() {
        for text in ["张伟", "Shadow伟", "😀🎮", "e\u{301}", "a…b", "‘quoted’ – dash", ""] {
            #expect(ControlCharacters.escaped(text) == text)
            #expect(!ControlCharacters.contains(in: text))
        }
    }

    @Test func theEscapedTextHasNoControlLeft() {
        var rng = SeededGenerator(seed: 5)
        for _ in 0..<2000 {
            let scalars = (0..<rng.below(12)).compactMap { _ in Unicode.Scalar(UInt32(rng.below(0x2100))) }
            let text = String(String.UnicodeScalarView(scalars))
            #expect(!ControlCharacters.contains(in: ControlCharacters.escaped(text)))
        }
    }
}

/// Dates and spans from files, stores and command lines never trap.
@Suite struct ClampedTimeTests {
    @Test func instantArithmeticHoldsAtTheEndsOfTime() {
        let end = Instant(millis: .max)
        #expect(end.adding(.seconds(120)).millis == .max)
        #expect(Instant(millis: .min).adding(.days(-1)).millis == -Int64.max)
        #expect(end.duration(since: Instant(millis: .min)).millis == .max)
        #expect(Instant.Duration.days(.max).millis == .max)
        #expect(Instant.Duration.seconds(.min).millis == -Int64.max)
        #expect(Instant(Date(timeIntervalSince1970: 1e300)).millis == .max)
        #expect(Instant(millis: .max).relativeText(from: Instant(millis: .min)).hasPrefix("in "))
        #expect(Instant.Duration(millis: .min).shortText.hasPrefix("-"))
    }

    @Test func doublesBecomeIntegersWithoutTrapping() {
        #expect(Int64(clamping: 1e300) == .max)
        #expect(Int64(clamping: -1e300) == -Int64.max)
        #expect(Int64(clamping: Double.nan) == 0)
        #expect(Int64(clamping: 2.5) == 3)
        #expect(Int64(clamping: 9.2e18) == 9_200_000_000_000_000_000)
    }

    @Test func aRateFromADamagedStoreScalesWithoutTrapping() {
        let rate = TimeRate(realMillisPerMonth: .max)
        #expect(rate.days(60).millis > 0)
        #expect(rate.end(of: .month, count: 1_000_000, from: Instant(millis: 0)).millis == .max)
        #expect(TimeRate.monthEvery30Seconds.realTime(forSubscriptionTime: .days(.max)).millis > 0)
    }

    @Test func aHugeOfferPeriodIsUnreadableNotAnOverflow() {
        #expect(CalendarPeriod(iso8601: "P9999999999999Y") == nil)
        #expect(CalendarPeriod(iso8601: "P12M") == CalendarPeriod(12, .month))
        #expect(CalendarPeriod(1, .year).end(from: Instant(millis: 0), count: .max).millis > 0)
    }

    @Test func simulationLimitsAreSaidInTheOptionsWords() {
        #expect(PaymentSimulation.Configuration.problem(seconds: 60, rate: 10, speed: 0) == nil)
        #expect(PaymentSimulation.Configuration.problem(seconds: 1, rate: 10, speed: 1e300)?.hasPrefix("--speed") == true)
        #expect(PaymentSimulation.Configuration.problem(seconds: .max, rate: 10, speed: 0)?.hasPrefix("--seconds") == true)
        #expect(PaymentSimulation.Configuration.problem(seconds: 60, rate: .nan, speed: 0)?.hasPrefix("--rate") == true)
        #expect(PaymentSimulation.Configuration.problem(seconds: 31_536_000, rate: 100_000, speed: 0)?.contains("in parts") == true)
    }
}

/// `events import` refuses a line whose dates would break the store's order.
@Suite struct NotificationDatesTests {
    static let signed = Instant(millis: 1_785_920_400_000)
    static let day: Int64 = 86_400_000

    static func event(
        purchase: Int64 = signed.millis, original: Int64? = nil, expires: Int64? = signed.millis + 30 * day,
        revoked: Int64? = nil, grace: Int64? = nil
    ) -> SubscriptionEvent {
        SubscriptionEvent(
            notificationType: NotificationType(rawValue: "SUBSCRIBED"), notificationUUID: "u", signedDate: signed,
            transaction: TransactionInfo(
                transactionId: "t", originalTransactionId: "o", productId: "p", purchaseDate: Instant(millis: purchase),
                originalPurchaseDate: original.map(Instant.init(millis:)), expiresDate: expires.map(Instant.init(millis:)),
                revocationDate: revoked.map(Instant.init(millis:))),
            renewal: RenewalInfo(gracePeriodExpiresDate: grace.map(Instant.init(millis:))))
    }

    @Test func theIssuesDatesAreRefusedWithTheirReason() {
        let cases: [(SubscriptionEvent, String)] = [
            (Self.event(expires: -1), "expiresDate -1 ms is not after purchaseDate"),
            (Self.event(expires: 0), "expiresDate 1970-01-01T00:00:00Z is not after purchaseDate"),
            (Self.event(expires: .min), "is not after purchaseDate"),
            (Self.event(purchase: -62_167_219_200_000), "purchaseDate -62167219200000 ms is before 2008-07-10"),
            (Self.event(purchase: 253_402_214_400_000), "purchaseDate 9999-12-31T00:00:00Z is after the notification was signed"),
            (Self.event(purchase: .max), "purchaseDate 9223372036854775807 ms is after"),
            (Self.event(expires: nil), "has no expiresDate"),
            (Self.event(expires: Self.signed.millis - 1000), "is not after purchaseDate"),
            (Self.event(expires: Self.signed.millis + 800 * Self.day), "more than two years after purchaseDate"),
            (Self.event(original: Self.signed.millis + Self.day), "originalPurchaseDate"),
            (Self.event(revoked: Self.signed.millis - Self.day), "revocationDate"),
            (Self.event(grace: Self.signed.millis), "gracePeriodExpiresDate"),
        ]
        for (event, reason) in cases {
            let problem = NotificationImport.dateProblem(in: event)
            #expect(problem?.contains(reason) == true, "\(problem ?? "accepted") should say \(reason)")
        }
    }

    @Test func ordinaryDatesAreAccepted() {
        #expect(NotificationImport.dateProblem(in: Self.event()) == nil)
        // A renewal dated from the end of the last period, signed a day before it.
        #expect(NotificationImport.dateProblem(in: Self.event(purchase: Self.signed.millis + Self.day)) == nil)
        #expect(NotificationImport.dateProblem(in: Self.event(revoked: Self.signed.millis, grace: Self.signed.millis + 46 * Self.day)) == nil)
    }

    @Test func crlfLinesAreRead() throws {
        let line = try Self.event().jsonLine()
        let lines = SubscriptionEvent.decodeJSONLines(line + "\r\n" + line + "\r\n\r\n")
        #expect(lines.failures.isEmpty)
        #expect(lines.entries.map(\.line) == [1, 2])
    }
}
