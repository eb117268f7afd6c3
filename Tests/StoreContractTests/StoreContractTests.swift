import Foundation
import PostgresClusterSupport
import StoreDeskCore
import StoreDeskPostgres
import StoreDeskSQLite
import StoreDeskStoreAPI
import Testing

/// The backends every contract test runs on.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

/// The areas of the seam the contract suite runs on both backends.
typealias ContractStore = StoreFile & UserStore & AuditStore & RestoreStore & LoginEntryStore & OneTapStore & QueueStore

/// Stores for the contract: the demo dataset in a SQLite file, and the same copied into a database of
/// its own on the throwaway PostgreSQL server the test process shares (stopped when the process ends).
final class ContractStores: @unchecked Sendable {
    static let shared = Result { try ContractStores() }

    let cluster: PostgresCluster
    let folder: URL

    private init() throws {
        cluster = try PostgresCluster.shared()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("storedesk-contract-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    static func get() throws -> ContractStores { try shared.get() }

    /// A demo store of its own in a SQLite file.
    func sqlite() throws -> AppDatabase {
        let path = folder.appendingPathComponent(UUID().uuidString + ".sqlite").path
        try DemoDatasetLoader.copyOfEmbeddedDemo(at: path)
        return try AppDatabase.open(path: path, access: .readWrite)
    }

    /// A new empty database on the cluster, and its address.
    func database() throws -> PostgresAddress {
        try PostgresAddress(cluster.url(database: try cluster.newDatabase("contract")))
    }

    /// The demo store in a new database (a copy of the cluster's demo template).
    func postgres() throws -> PostgresStore {
        try PostgresStore.open(try PostgresAddress(cluster.url(database: try cluster.newDemoDatabase("contract"))), access: .readWrite)
    }

    func store(_ backend: Backend) throws -> any ContractStore {
        switch backend {
        case .sqlite: try sqlite()
        case .postgres: try postgres()
        }
    }

    /// Another connection to the same store, as another process (or machine) would hold.
    static func another(_ store: any ContractStore) throws -> any ContractStore {
        if let postgres = store as? PostgresStore { return try PostgresStore.open(postgres.address, access: .readWrite) }
        return try AppDatabase.open(path: store.path, access: .readWrite)
    }
}

/// One contract, both backends: the named reads answer the same on the demo store, pages run both ways
/// without gaps or repeats, writes stamp time that never runs backwards, and refusals leave nothing.
@Suite(.serialized) struct StoreContractTests {
    static let demoClock = Instant(millis: 1_795_161_600_000)

    @Test(arguments: Backend.allCases) func theDemoStoreAnswersAsItWasBuilt(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        #expect(try store.userCount() == 40)
        #expect(try store.clock() == Self.demoClock)
        let apps = try store.apps()
        #expect(apps.map(\.id) == ["1001", "1002", "1003"], "\(apps.map(\.id))")
        #expect(apps.first?.name == "星海征途")
        #expect(try store.lastUserSequence() == 40)
    }

    @Test(arguments: Backend.allCases) func everyOrderPagesBothWaysWithoutGapsOrRepeats(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.store(backend)
        let reference = try stores.sqlite()
        for order in UserOrder.allCases {
            for descending in [false, true] {
                let search = UserSearch(text: "", order: order, descending: descending)
                let listed = try reference.users(matching: search).first(limit: 100)
                let expected = listed.map(\.id)
                #expect(expected.count == 40)
                // The list runs by the column it is named after, as the Users screen shows it (CREATED, ID,
                // NAME: the friendly name, else the login name), not the order players came into the store.
                let keys = listed.map { row -> [UInt8] in
                    switch order {
                    case .added: Array(String(format: "%015lld", row.sequence).utf8)
                    case .created: Array(String(format: "%015lld", row.user.createdAt.millis).utf8)
                    case .id: Array(row.user.id.utf8)
                    case .name: Array(row.user.displayName.utf8)
                    }
                }
                let sorted = keys.sorted { descending ? $1.lexicographicallyPrecedes($0) : $0.lexicographicallyPrecedes($1) }
                #expect(keys == sorted, "\(order) \(descending)")
                let pager = store.users(matching: search)
                let (forward, backward) = try pager.walked(limit: 7)
                #expect(forward.map(\.id) == expected, "\(order) \(descending)")
                #expect(backward.map(\.id) == expected, "\(order) \(descending) backwards")
                let around = try #require(try pager.around(id: expected[20], limit: 5))
                #expect(around.map(\.id) == Array(expected[20..<25]))
                #expect(try pager.around(id: "no-such-user", limit: 5) == nil)
            }
        }
    }

    @Test(arguments: Backend.allCases) func filtersFindCJKNamesIdsAndTheLastFourOnly(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.store(backend)
        let reference = try stores.sqlite()
        let someone = try reference.profile(userId: "10000001", recent: 1).user
        let lastFour = String(someone.phone.suffix(4))
        for text in ["王", "张伟", "婷妈", "1000000", "10000013", lastFour, "guest", "%", "_", "\\", "zz-nothing"] {
            let search = UserSearch(text: text)
            let expected = try reference.users(matching: search).first(limit: 100).map(\.id)
            let found = try store.users(matching: search).first(limit: 100).map(\.id)
            #expect(found == expected, "“\(text)”")
            if text == lastFour { #expect(found.contains(someone.id)) }
        }
        // More of the phone than its last four finds nobody: a masked number never leaks more than it shows.
        let middle = String(someone.phone.dropLast(2).suffix(4))
        #expect(try store.users(matching: UserSearch(text: middle)).first(limit: 100).allSatisfy { !$0.user.phone.contains(middle) || $0.user.id.contains(middle) })
        // A short filter is scanned in slices of the list, and the slices add up to the whole answer.
        let short = UserSearch(text: "王")
        let whole = try store.users(matching: short).first(limit: 100).map(\.id)
        let last = try store.lastUserSequence()
        var sliced: [String] = []
        var start: Int64 = 1
        while start <= last {
            sliced += try store.users(matching: short, scanning: start..<(start + 9), limit: 100).map(\.id)
            start += 9
        }
        #expect(sliced == whole)
    }

    @Test(arguments: Backend.allCases) func everyProfileIsTheSameStory(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store = try stores.store(backend)
        let reference = try stores.sqlite()
        for row in try reference.users(matching: UserSearch(text: "")).first(limit: 100) {
            let expected = try reference.profile(userId: row.id, recent: 10)
            let profile = try store.profile(userId: row.id, recent: 10)
            #expect(profile == expected, "\(row.id)")
        }
        #expect(throws: StoreError.unknownUser(id: "nobody")) { try store.profile(userId: "nobody", recent: 10) }
    }

    @Test(arguments: Backend.allCases) func auditLinesAreStampedOnTheStoresTimeLineAndFiltered(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let support = StaffMember(name: "li.na", role: .support)
        let before = try store.audit(AuditQuery()).count()
        // A line proposed before the store's clock is stamped at the clock, never before it.
        try store.recordAudit(AuditEntry(at: Instant(millis: 0), actor: "li.na", role: "support", action: "restore.decline", subject: "T1", detail: "refunded by Apple"))
        try store.recordAudit(AuditEntry(at: Instant(millis: Self.demoClock.millis + 5_000), actor: "wang.qiang", role: "operator", action: "login.entries.set", subject: "1001", detail: "wechat, qq"))
        try store.recordPhoneReveal(userId: "10000001", by: support, at: Self.demoClock, surface: "Users", reason: "ticket #8812")
        let newest = try store.audit(AuditQuery()).first(limit: 3)
        #expect(newest.map(\.action) == ["reveal.phone", "login.entries.set", "restore.decline"])
        #expect(newest[2].at == Self.demoClock)
        #expect(newest[0].at >= newest[1].at && newest[1].at >= newest[2].at)
        #expect(try store.clock() == Instant(millis: Self.demoClock.millis + 5_000))
        #expect(newest[0].detail == "phone revealed on Users: ticket #8812" && newest[2].detail == "refunded by Apple")
        #expect(try store.audit(AuditQuery(action: "restore")).first(limit: 10).map(\.subject).contains("T1"))
        #expect(try store.audit(AuditQuery(actor: "wang.qiang")).first(limit: 10).map(\.action) == ["login.entries.set"])
        #expect(try store.audit(AuditQuery(text: "REFUNDED by")).first(limit: 10).map(\.subject).first == "T1")
        let oldest = try store.audit(AuditQuery(oldestFirst: true)).last(limit: 1)
        #expect(oldest.map(\.action) == ["reveal.phone"])
        if case .exact(let count)? = try store.audit(AuditQuery()).count(), case .exact(let was)? = before { #expect(count == was + 3) }
        // An operator may not reveal a phone number: refused, and nothing is written.
        #expect(throws: StoreError.self) {
            try store.recordPhoneReveal(userId: "10000001", by: StaffMember(name: "wang.qiang", role: .operator), at: Self.demoClock, surface: "Users", reason: "x")
        }
        // Nor without a reason.
        #expect(throws: StoreError.self) { try store.recordPhoneReveal(userId: "10000001", by: support, at: Self.demoClock, surface: "Users", reason: " ") }
        #expect(try store.audit(AuditQuery()).first(limit: 1).map(\.action) == ["reveal.phone"])
    }

    @Test(arguments: Backend.allCases) func anotherConnectionsCommitIsNoticed(_ backend: Backend) throws {
        let stores = try ContractStores.get()
        let store: any ContractStore
        let other: any ContractStore
        switch backend {
        case .sqlite:
            let database = try stores.sqlite()
            store = database
            other = try AppDatabase.open(path: database.path, access: .readWrite)
        case .postgres:
            let database = try stores.postgres()
            store = database
            other = try PostgresStore.open(database.address, access: .readWrite)
        }
        let watcher = try store.commitWatcher()
        _ = try watcher.changed()
        #expect(try watcher.changed() == false)
        try other.recordAudit(AuditEntry(at: Self.demoClock, actor: "li.na", role: "support", action: "note", subject: "x", detail: "y"))
        var seen = false
        for _ in 0..<20 where !seen {
            seen = try watcher.changed()
            if !seen { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(seen, "a commit on another connection was not noticed within a second")
        #expect(try watcher.changed() == false)
    }

    /// Consoles open on one store show one clock: each writes where its clock stands,
    /// another connection reads it back, the store's clock moves there (commands answer at it), and a
    /// console behind the shared clock at the same wall instant never takes it back.
    @Test(arguments: Backend.allCases) func consolesOnOneStoreShareOneClock(_ backend: Backend) throws {
        let store = try ContractStores.get().store(backend)
        let other = try ContractStores.another(store)
        #expect(try store.sharedClock() == nil)
        let wall = Instant(millis: 1_800_000_000_000)
        let ahead = Self.demoClock.adding(.seconds(90))
        try store.share(clock: ahead, wall: wall)
        #expect(try other.sharedClock() == SharedClock(instant: ahead, wall: wall))
        #expect(try other.clock() == ahead)
        // Five seconds on, a console showing the shared instant unmoved is behind it: the shared clock stays.
        try other.share(clock: ahead, wall: wall.adding(.seconds(5)))
        #expect(try store.sharedClock() == SharedClock(instant: ahead, wall: wall))
        // One ahead of it replaces it, and moves the store's clock on.
        let later = ahead.adding(.seconds(20))
        try other.share(clock: later, wall: wall.adding(.seconds(5)))
        #expect(try store.sharedClock() == SharedClock(instant: later, wall: wall.adding(.seconds(5))))
        #expect(try store.clock() == later)
        // A console opening within the lease starts where the others stand; after it, at the store's clock.
        let opened = SharedClock.instant(store: try store.clock()!, shared: try store.sharedClock(), wall: wall.adding(.seconds(8)))
        #expect(opened == later.adding(.seconds(3)))
        let lapsed = SharedClock.instant(store: try store.clock()!, shared: try store.sharedClock(), wall: wall.adding(.seconds(60)))
        #expect(lapsed == later)
    }
}
