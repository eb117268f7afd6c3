import StoreDeskCore
import Testing

@Suite("ReceiptCheck: verifyReceipt against production, then sandbox on 21007")
struct ReceiptCheckTests {
    @Test("status 0 from production is valid after one request")
    func validProduction() {
        let check = ReceiptCheck.run { _ in 0 }
        #expect(check.verdict == .valid(.production))
        #expect(check.attempts == [.init(endpoint: .production, status: .valid)])
        #expect(check.isValid)
    }

    @Test("21007 from production is retried against the sandbox")
    func sandboxRetry() {
        let check = ReceiptCheck.run { $0 == .production ? 21007 : 0 }
        #expect(check.verdict == .valid(.sandbox))
        #expect(check.attempts.map(\.endpoint) == [.production, .sandbox])
        #expect(check.attempts.map(\.status.code) == [21007, 0])
        #expect(check.reason.contains("21007"))
    }

    @Test("the sandbox's own answer is final")
    func sandboxRejects() {
        let check = ReceiptCheck.run { $0 == .production ? 21007 : 21003 }
        #expect(check.verdict == .rejected(ReceiptStatus(21003)))
        #expect(check.attempts.count == 2)
    }

    @Test(
        "every other status is rejected without a retry",
        arguments: [21000, 21001, 21002, 21003, 21004, 21005, 21006, 21008, 21009, 21010, 21100, 21199, 42])
    func rejected(code: Int) {
        let check = ReceiptCheck.run { _ in code }
        #expect(check.verdict == .rejected(ReceiptStatus(code)))
        #expect(check.attempts.count == 1)
        #expect(!check.isValid)
        #expect(check.reason.contains(String(code)))
    }

    @Test("Apple's statuses 21000–21010 each have their meaning")
    func meanings() {
        #expect(ReceiptStatus.documented.map(\.code) == Array(21000...21010))
        let meanings = ReceiptStatus.documented.map(\.meaning)
        #expect(!meanings.contains("unknown status"))
        #expect(ReceiptStatus(21007).meaning.contains("sandbox"))
        #expect(ReceiptStatus(21008).meaning.contains("production"))
        #expect(ReceiptStatus(21003).meaning == "the receipt could not be authenticated")
        #expect(ReceiptStatus(21150).meaning == "internal data access error")
        #expect(ReceiptStatus(7).meaning == "unknown status")
    }

    @Test("retryable statuses are the ones Apple says to try again")
    func retryable() {
        #expect(ReceiptStatus.documented.filter(\.isRetryable).map(\.code) == [21002, 21005, 21009])
        #expect(ReceiptStatus(21100).isRetryable)
        #expect(!ReceiptStatus.valid.isRetryable)
    }

    @Test("a simulated receipt is valid in the environment that issued it")
    func simulatedEnvironments() {
        #expect(ReceiptCheck.run(receiptEnvironment: .production).verdict == .valid(.production))
        #expect(ReceiptCheck.run(receiptEnvironment: .sandbox).verdict == .valid(.sandbox))
        #expect(ReceiptCheck.run(receiptEnvironment: .sandbox, status: 21010).verdict == .rejected(ReceiptStatus(21010)))
        #expect(ReceiptCheck.run(receiptEnvironment: .production, status: 21004).attempts.count == 1)
    }
}
