import ArgumentParser
import Dispatch
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskOpener
import StoreDeskTrust

extension BenchCommand {
    /// `storedesk bench import`: `events import` of a year of notification history (chains of five) into a
    /// seeded store, decoded and signed, each as its own process (time and peak memory), beside what
    /// SQLite alone does with the same lines and what the signatures alone cost, in the same run.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Notifications a second of `events import` (decoded and verified) beside SQLite's json_extract insert.")
        @Option(help: "How many notifications (chains of five).") var notifications: Int = 100_000
        @Option(help: "How many users the seeded store has.") var users: Int = 100_000
        @Option(help: "A smaller file's notifications, to show memory does not grow with the file.") var small: Int = 10_000
        @Option(help: "The generator's seed.") var seed: UInt64 = 1
        @Option(help: ArgumentHelp("A folder to keep the seeded store and the files in, reused by later runs (default: a temporary one).", valueName: "path"))
        var folder: String?

        /// The most notifications a run makes (the README's figures go to 2,000,000 lines).
        static let largestNotifications = 10_000_000

        func validate() throws {
            // The files are written a line at a time, but a history's chains are made in memory first.
            guard (5...Self.largestNotifications).contains(notifications) else {
                throw fail("--notifications must be from 5 to \(Self.largestNotifications), got \(notifications)")
            }
            guard (5...notifications).contains(small) else {
                throw fail("--small must be from 5 to --notifications (\(notifications)), got \(small)")
            }
            guard (0...StoreOpener.largestSeed).contains(users) else {
                throw fail("--users must be from 0 to \(StoreOpener.largestSeed), got \(users)")
            }
        }

        func run() throws {
            try reporting {
                let kept = folder.map { URL(fileURLWithPath: $0, isDirectory: true) }
                let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-bench-import-" + UUID().uuidString)
                let base = kept ?? scratch
                try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
                defer { if kept == nil { try? FileManager.default.removeItem(at: base) } }
                func path(_ name: String) -> String { base.appendingPathComponent(name).path }
                func made(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }
                // Kept files are named by what they hold, so other sizes or seeds make their own.
                let storeName = "seeded-\(users)u-s\(seed).sqlite"
                let decodedName = "history-\(notifications).decoded.jsonl", smallName = "history-\(notifications)-first-\(small).decoded.jsonl"
                let signedName = "history-\(notifications).signed.jsonl", rootName = "history-\(notifications).root.pem"

                let demo = try StoreOpener.demoDataset()
                var start = DispatchTime.now()
                if !made(storeName) {
                    _ = try StoreOpener.seed(
                        path: path(storeName), users: users, seed: seed, catalogue: demo.catalogue, clock: demo.clock,
                        replacing: false)
                }
                let seedMs = BenchCommand.since(start)

                start = DispatchTime.now()
                let history = try BenchHistory(count: notifications, catalogue: demo.catalogue, clock: demo.clock)
                if !made(decodedName) { try history.write(to: path(decodedName)) { try $0.jsonLine() } }
                if !made(smallName) { try history.write(to: path(smallName), limit: small) { try $0.jsonLine() } }
                if !made(signedName) || !made(rootName) {
                    let chain = try SigningChain(name: "Bench App Store")
                    try history.write(to: path(signedName), inParallel: true) { try chain.signedNotificationLine($0) }
                    try chain.rootPEM().write(toFile: path(rootName), atomically: true, encoding: .utf8)
                }
                let root = try TrustRootFile.read(path: path(rootName))
                let filesMs = BenchCommand.since(start)
                func size(_ name: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path(name)))?[.size] as? Int) ?? 0 }
                let decodedBytes = size(decodedName), signedBytes = size(signedName)
                print(
                    "import: \(notifications.formattedWithSeparators) notifications (\(notifications / 5) chains of five, a year "
                        + "in date order) into a \(users.formattedWithSeparators)-user store; files \(megabytes(decodedBytes)) decoded, "
                        + "\(megabytes(signedBytes)) signed (seed \(Int(seedMs / 1000)) s, files \(Int(filesMs / 1000)) s, not timed below)")

                // The baseline: SQLite itself inserting the same lines as rows, fields by json_extract, one transaction.
                let raw = path("raw-\(UUID().uuidString).sqlite")
                let rawMs = try SQLiteBaselines.jsonExtractInsert(linesOf: path(decodedName), into: raw)
                try? FileManager.default.removeItem(atPath: raw)

                // Each import is the real command, in a process of its own, on a fresh copy of the seeded store.
                func importRun(_ file: String, _ extra: [String] = []) throws -> ChildRun {
                    let copy = path("copy-\(UUID().uuidString).sqlite")
                    try FileManager.default.copyItem(atPath: path(storeName), toPath: copy)
                    defer {
                        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
                    }
                    return try ChildRun.storedesk(["events", "import", file, "--db", copy] + extra, output: path("out.txt"))
                }
                let decoded = try importRun(path(decodedName))
                let smallRun = try importRun(path(smallName))
                let (signaturesMs, signaturesCPUMs) = try BenchImportBaseline.signaturesAlone(file: path(signedName), root: root)
                let verified = try importRun(path(signedName), ["--trust-root", path(rootName)])

                func rate(_ ms: Double, _ count: Int = notifications) -> String {
                    Int((Double(count) / max(ms, 0.001) * 1000).rounded()).formattedWithSeparators + "/s"
                }
                // CPU a line beside the wall-clock rates: what a run costs whatever else the machine is doing.
                func cpu(_ ms: Double, _ count: Int = notifications) -> String {
                    String(format: "CPU %.1f s, %.0f µs a line", ms / 1000, ms * 1000 / Double(max(count, 1)))
                }
                print(String(format: "  SQLite json_extract insert, same lines, one transaction  %8.0f ms  %@", rawMs, rate(rawMs)))
                print(
                    String(
                        format: "  events import, decoded                                  %8.0f ms  %@  (%@ of SQLite's rate)  peak %@  %@",
                        decoded.ms, rate(decoded.ms), ratio(rawMs, decoded.ms), megabytes(decoded.peakKB * 1024), cpu(decoded.cpuMs)))
                print("      \(decoded.lastLine)")
                print(
                    String(
                        format: "  events import, decoded, %@ lines                      %8.0f ms  %@  peak %@ (%@ of the whole file's peak)",
                        small.formattedWithSeparators, smallRun.ms, rate(smallRun.ms, small), megabytes(smallRun.peakKB * 1024),
                        ratio(Double(smallRun.peakKB), Double(decoded.peakKB))))
                print(
                    String(
                        format: "  ES256 verify alone, the same %@ signatures, both cores %8.0f ms  %@ notifications  %@",
                        (notifications * 3).formattedWithSeparators, signaturesMs, rate(signaturesMs), cpu(signaturesCPUMs)))
                print(
                    String(
                        format: "  events import, signed, verified                         %8.0f ms  %@  (%@ of the signatures' own rate)  peak %@  %@",
                        verified.ms, rate(verified.ms), ratio(signaturesMs, verified.ms), megabytes(verified.peakKB * 1024),
                        cpu(verified.cpuMs)))
                print("      \(verified.lastLine)")
                if decoded.status != 0 || verified.status != 0 || smallRun.status != 0 {
                    throw StoreError.invalidArgument("an import did not finish cleanly (exit \(decoded.status), \(smallRun.status), \(verified.status))")
                }
            }
        }

        func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

        /// `0.42x`: how `ours` compares with `baseline` as rates (baseline time over ours).
        func ratio(_ baseline: Double, _ ours: Double) -> String { String(format: "%.2fx", baseline / max(ours, 0.001)) }
    }
}

/// A year of App Store notification history: chains of five (subscribed, three renewals, auto-renew turned
/// off), one a subscriber, starting across the year, the lines in the order of their signing dates, as
/// Apple's notification history gives them.
struct BenchHistory {
    let app: App
    let product: Product
    let clock: Instant
    /// (signed date, chain, step) in file order.
    let order: [(Int64, Int, Int)]

    init(count: Int, catalogue: Catalogue, clock: Instant) throws {
        guard let product = catalogue.products.first(where: { $0.id == "com.storedesk.starvoyage.vip.monthly" }),
            let app = catalogue.apps.first(where: { $0.id == product.appId })
        else { throw StoreError.invalidArgument("the demo catalogue has no com.storedesk.starvoyage.vip.monthly") }
        self.app = app
        self.product = product
        self.clock = clock
        let chains = count / 5
        var order: [(Int64, Int, Int)] = []
        order.reserveCapacity(chains * 5)
        for chain in 0..<chains {
            let start = Self.start(chain, of: chains, clock: clock)
            for step in 0..<5 { order.append((start + Int64(step) * Self.month + (step == 4 ? -2 * Self.day : 0), chain, step)) }
        }
        self.order = order.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
    }

    static let day: Int64 = 86_400_000
    static let month: Int64 = 30 * day

    /// Chains start across the 240 days that end 130 days before the clock, so every line is signed before it.
    static func start(_ chain: Int, of chains: Int, clock: Instant) -> Int64 {
        clock.millis - 370 * day + Int64(chain) * (240 * day) / Int64(max(chains, 1))
    }

    func event(chain: Int, step: Int) -> SubscriptionEvent {
        let start = Self.start(chain, of: order.count / 5, clock: clock)
        let original = String(3_100_000_000_000_000 + chain * 10)
        let purchase = start + Int64(min(step, 3)) * Self.month
        let signed = start + Int64(step) * Self.month + (step == 4 ? -2 * Self.day : 0)
        let kind: (NotificationType, NotificationSubtype?) =
            switch step {
            case 0: (.subscribed, .initialBuy)
            case 4: (.didChangeRenewalStatus, .autoRenewDisabled)
            default: (.didRenew, nil)
            }
        let uuid = String(format: "%08x-b3c4-4d5e-8f60-%012x", chain, step)
        return SubscriptionEvent(
            notificationType: kind.0, subtype: kind.1, notificationUUID: uuid, signedDate: Instant(millis: signed),
            appAppleId: app.appleAppId, bundleId: app.bundleId, environment: "Production", status: 1,
            transaction: TransactionInfo(
                transactionId: String(3_100_000_000_000_000 + chain * 10 + min(step, 3)), originalTransactionId: original,
                productId: product.id, subscriptionGroupIdentifier: product.subscriptionGroup, bundleId: app.bundleId,
                purchaseDate: Instant(millis: purchase), originalPurchaseDate: Instant(millis: start),
                expiresDate: Instant(millis: purchase + Self.month), environment: "Production",
                transactionReason: step == 0 ? "PURCHASE" : "RENEWAL", inAppOwnershipType: "PURCHASED", price: 30_000,
                currency: "CNY", storefront: "CHN", signedDate: Instant(millis: signed)),
            renewal: RenewalInfo(
                originalTransactionId: original, productId: product.id, autoRenewProductId: product.id,
                autoRenewStatus: step == 4 ? 0 : 1, environment: "Production", signedDate: Instant(millis: signed)))
    }

    /// Writes the first `limit` lines (all by default), each made by `line`, a block at a time; with
    /// `inParallel`, a block's lines are made on every core. Returns the file's size.
    func write(
        to path: String, limit: Int? = nil, inParallel: Bool = false, line: @escaping @Sendable (SubscriptionEvent) throws -> String
    ) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else { throw StoreError.dataFile(path: path, message: "cannot be written") }
        defer { try? handle.close() }
        let wanted = Array(order.prefix(limit ?? order.count))
        let block = 2_000
        for first in stride(from: 0, to: wanted.count, by: block) {
            let slice = Array(wanted[first..<min(first + block, wanted.count)])
            let texts = BlockResults(count: slice.count)
            let parts = inParallel ? 8 : 1
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for index in stride(from: part, to: slice.count, by: parts) {
                    texts.set(index, Result { try line(self.event(chain: slice[index].1, step: slice[index].2)) })
                }
            }
            var data = Data()
            for result in texts.values {
                data.append(contentsOf: try result.get().utf8)
                data.append(UInt8(ascii: "\n"))
            }
            try handle.write(contentsOf: data)
        }
    }

    /// One slot a line, filled from several threads (each index once).
    final class BlockResults: @unchecked Sendable {
        private(set) var values: [Result<String, any Error>]
        private let lock = NSLock()
        init(count: Int) { values = Array(repeating: .success(""), count: count) }
        func set(_ index: Int, _ value: Result<String, any Error>) {
            lock.lock()
            values[index] = value
            lock.unlock()
        }
    }
}

/// The baselines of `bench import`, measured in the same run.
enum BenchImportBaseline {
    /// Every ES256 signature of the signed file checked on every core with the verifier's own code, its
    /// chain already validated and cached: no JSON, no store, the floor a verified import stands on. The
    /// file is read a block at a time; only the checks are timed. Returns the wall time and the process's
    /// CPU time over the same spans (ms).
    static func signaturesAlone(file: String, root: TrustedRoot) throws -> (wall: Double, cpu: Double) {
        let verifier = try AppStoreSignatureVerifier(roots: [root])
        let notification = try NotificationFile(path: file)
        var ms = 0.0
        var cpuMs = 0.0
        var failures = 0
        var lines = notification.lines()
        while true {
            var block: [UnverifiedJWS] = []
            while block.count < 6_000, let line = try lines.next() {
                let decoded = try NotificationLine.decode(jsonLine: line)
                block += [decoded.signedPayload, decoded.signedTransaction, decoded.signedRenewal].compactMap { $0 }
            }
            guard !block.isEmpty else { break }
            let work = block
            let parts = ProcessInfo.processInfo.activeProcessorCount
            let bad = BenchHistory.BlockResults(count: parts)
            let start = DispatchTime.now()
            let cpuStart = processCPUMs()
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                var count = 0
                for index in stride(from: part, to: work.count, by: parts) {
                    // Long after every certificate's start: the date only picks the cached chain.
                    if case .failure = verifier.verify(work[index], at: Instant(millis: 1_800_000_000_000)) { count += 1 }
                }
                bad.set(part, .success(String(count)))
            }
            ms += BenchCommand.since(start)
            cpuMs += processCPUMs() - cpuStart
            failures += bad.values.compactMap { Int((try? $0.get()) ?? "0") }.reduce(0, +)
        }
        guard failures == 0 else { throw StoreError.invalidArgument("\(failures) bench signatures did not verify") }
        return (ms, cpuMs)
    }

    /// CPU time this process has used on every thread, ms.
    static func processCPUMs() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
    }
}

/// One run of this binary as a child process: its exit status, wall time and peak memory.
struct ChildRun {
    var status: Int32
    var ms: Double
    /// Peak resident memory, KB (`ru_maxrss`).
    var peakKB: Int
    /// User and system CPU time of the run, ms (all its threads).
    var cpuMs: Double
    /// The last line it printed.
    var lastLine: String

    static func storedesk(_ arguments: [String], output: String) throws -> ChildRun {
        let binary = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Through /usr/bin/time, which forks: a process spawned straight from this one would report this
        // one's peak memory as its own (Linux keeps the larger across exec).
        let measured = output + ".time"
        let argv = (["/usr/bin/time", "-f", "%M", "-o", measured, binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = DispatchTime.now()
        let spawned = posix_spawn(&pid, "/usr/bin/time", &actions, nil, argv, environ)
        guard spawned == 0 else { throw StoreError.invalidArgument("cannot run \(binary): error \(spawned)") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
        let ms = BenchCommand.since(start)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let last = printed.split(separator: "\n").last.map(String.init) ?? ""
        let peak = Int(((try? String(contentsOfFile: measured, encoding: .utf8)) ?? "").split(separator: "\n").last ?? "") ?? 0
        // `/usr/bin/time` waited for the run, so its usage holds the run's.
        let cpuMs =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
        return ChildRun(status: (status >> 8) & 0xff, ms: ms, peakKB: peak, cpuMs: cpuMs, lastLine: last)
    }
}
