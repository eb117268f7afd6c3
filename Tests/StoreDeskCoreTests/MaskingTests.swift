import Testing
@testable import StoreDeskCore

@Suite struct MaskingTests {
    @Test(arguments: [
        ("13800000000", "138****0000"),
        ("15012341234", "150****1234"),
        ("12345", "*****"),
    ])
    func phoneNumbersShowOnlyTheirEnds(raw: String, shown: String) {
        #expect(Masking.phone(raw) == shown)
    }

    /// Log lines mask every run of exactly 11 ASCII digits that starts with 1, whatever surrounds it.
    @Test(arguments: [
        ("u_13800000000", "u_138****0000"), ("13800000000", "138****0000"), ("order_id=13912345678&x=1", "order_id=139****5678&x=1"),
        ("138000000001", "138000000001"), ("23800000000", "23800000000"), ("1380000000", "1380000000"),
        ("张伟13800000000🇨🇳15012345678", "张伟138****0000🇨🇳150****5678"), ("", ""), ("no digits", "no digits"),
        ("１３８００００００００", "１３８００００００００"), ("9223372030000000001", "9223372030000000001"),
    ])
    func phoneNumbersInFreeText(text: String, masked: String) {
        #expect(Masking.phoneNumbers(in: text) == masked)
    }

    @Test func idCardsKeepRegionAndLastFour() {
        #expect(Masking.idCard("110101199003071234") == "110***********1234")
        #expect(Masking.isMaskedIDCard("110***********1234"))
        #expect(!Masking.isMaskedIDCard("110101199003071234"))
    }

    @Test func appKeysNeverShowInFull() {
        let key = "5f4dcc3b5aa765d61d8327deb882cf99"
        let masked = Masking.secret(key)
        #expect(masked == "5f4d****99")
        #expect(!masked.contains(key))
        #expect(Masking.secret("short") == "*****")
    }

    @Test func aUserShowsItsPhoneMasked() {
        let user = User(
            id: "1", name: "张伟", friendlyName: "", idCard: "", phone: "13800000000", site: .weChat, adultType: .adult,
            fcm: false, authorizState: 1, safety: 0, clientId: "c1", createdAt: Instant(millis: 0))
        #expect(user.maskedPhone == "138****0000")
        #expect(user.displayName == "张伟")
        #expect(!user.isGuest)
    }
}

@Suite struct InstantTests {
    @Test func parsesISO8601AndAppleMilliseconds() throws {
        let instant = try #require(Instant(iso8601: "2026-11-20T08:00:00Z"))
        #expect(instant.millis == 1_795_161_600_000)
        #expect(Instant(iso8601: "2026-11-20T16:00:00+08:00") == instant)
        #expect(Instant(iso8601: "2026-11-20")?.millis == 1_795_132_800_000)
        #expect(Instant(iso8601: "yesterday") == nil)
        #expect(instant.iso8601 == "2026-11-20T08:00:00Z")
    }

    @Test func durationsReadShort() {
        #expect(Instant.Duration.days(3).shortText == "3d 0h")
        #expect(Instant.Duration.minutes(75).shortText == "1h 15m")
        #expect(Instant.Duration.seconds(42).shortText == "42s")
    }
}

@Suite struct SeededGeneratorTests {
    @Test func theSameSeedGivesTheSameSequence() {
        var a = SeededGenerator(seed: 9), b = SeededGenerator(seed: 9), c = SeededGenerator(seed: 10)
        let sa = (0..<100).map { _ in a.next() }, sb = (0..<100).map { _ in b.next() }, sc = (0..<100).map { _ in c.next() }
        #expect(sa == sb)
        #expect(sa != sc)
    }

    @Test func belowStaysInRange() {
        var rng = SeededGenerator(seed: 1)
        var seen = Set<Int>()
        for _ in 0..<10_000 {
            let n = rng.below(7)
            #expect((0..<7).contains(n))
            seen.insert(n)
        }
        #expect(seen.count == 7)
    }
}
