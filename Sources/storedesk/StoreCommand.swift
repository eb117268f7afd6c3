import ArgumentParser
import Foundation
import StoreDeskCore
import StoreDeskStoreAPI
import StoreDeskOpener
import StoreDeskUI

/// `storedesk store …`: a whole store at once.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store", abstract: "A whole store at once: copy it to another file or server.", subcommands: [Copy.self])

    /// `store copy --from A --to B`: every row of a store (apps, keys, catalogues, players, transactions,
    /// orders, grants, events, restores, audit, trust roots, clock) into a new store, SQLite or PostgreSQL
    /// on either side, in one transaction; then both sides are read back the way `check --json`,
    /// `user show --json` and `subs --json` read them, and must agree.
    struct Copy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "copy",
            abstract: "Copy a whole store into a new one (a SQLite file or a postgres:// database), and verify the copy.",
            discussion: """
                Either side is a SQLite file or a postgres://USER@HOST:PORT/DB address (the password from \
                PGPASSFILE, ~/.pgpass or passfile=, never the address). The destination must not hold a store: \
                a new file (--force replaces one), or a database without StoreDesk's schema. The copy runs in one \
                transaction; when it fails, the destination is left as it was.
                """)
        @Option(help: ArgumentHelp("The store to copy: a file or a postgres:// address.", valueName: "path|url")) var from: String
        @Option(help: ArgumentHelp("Where the copy goes: a new file or an empty postgres:// database.", valueName: "path|url")) var to: String
        @Flag(help: "Replace an existing destination file.") var force = false
        @Flag(help: "Upgrade a source with an older schema first (never done without this flag).") var migrate = false
        @Option(help: ArgumentHelp("Players read back on both sides to verify the copy (spread over the list; 0: all).", valueName: "count"))
        var verify = 1000
        @OptionGroup var output: OutputOptions

        func validate() throws {
            guard from != to else { throw ValidationError("--from and --to name the same store '\(from)'") }
            guard verify >= 0 && verify <= 10_000_000 else { throw ValidationError("--verify must be from 0 to 10000000, got \(verify)") }
        }

        func run() throws {
            let started = Date()
            let report = try reporting { () throws -> StoreCopyReport in
                // The source is opened (and its schema checked) before anything is written anywhere.
                _ = try StoreOpener.open(path: from, access: .readOnly, migrate: migrate)
                try StoreOpener.checkDestination(to, replacing: force)
                do {
                    return try StoreOpener.copy(from: from, to: to, replacing: force)
                } catch {
                    throw StoreOpener.storeError(for: error, path: to) ?? StoreOpener.storeError(for: error, path: from) ?? error
                }
            }
            let copied = Date()
            let verified = try reporting { try Self.verify(from: from, to: to, players: verify) }
            try output.show(
                StoreCopyCommandReport(
                    from: from, to: to, tables: report.tables, copySeconds: copied.timeIntervalSince(started),
                    verifySeconds: Date().timeIntervalSince(copied), verified: verified))
        }

        /// Reads both stores back as the commands do and compares: `check --json`, then for `players`
        /// players spread over the list (every one when 0) `user show --json`, and `subs --json` for those
        /// with subscriptions. A difference is an error naming the first one found.
        static func verify(from: String, to: String, players: Int) throws -> StoreCopyCommandReport.Verified {
            let source = try StoreOpener.open(path: from, access: .readOnly)
            let copy = try StoreOpener.open(path: to, access: .readOnly)
            func differ(_ what: String) -> StoreError {
                StoreError.invalidArgument("the copy at \(to) differs from \(from): \(what)")
            }
            let violations = try source.check()
            let check = try encoded(CheckReport(path: "", violations: violations).json)
            guard check == (try encoded(CheckReport(path: "", violations: try copy.check()).json)) else { throw differ("check finds other violations") }
            let total = try source.userCount()
            guard total == (try copy.userCount()) else { throw differ("it holds \(try copy.userCount()) players, the source \(total)") }
            let ids = try spread(try source, count: players == 0 ? total : min(players, total), total: total)
            var subscribers = 0
            let instant = try source.commandNow().instant
            for id in ids {
                let shown = try encoded(ProfileReport(profile: try source.profile(userId: id), zone: .gmt).json)
                guard shown == (try encoded(ProfileReport(profile: try copy.profile(userId: id), zone: .gmt).json)) else {
                    throw differ("user show \(id)")
                }
                let records = try source.subscriptionRecords(userId: id)
                guard !records.rows.isEmpty, let owner = try source.user(id: id) else { continue }
                subscribers += 1
                func subs(_ store: any NotificationImportStore) throws -> Data {
                    let records = try store.subscriptionRecords(userId: id)
                    return try encoded(
                        SubsReport(
                            owner: owner, snapshot: records.snapshot(at: instant),
                            timeline: SubscriptionTimeline(events: records.events.filter { $0.signedDate <= instant }), instant: instant,
                            product: nil, zone: .gmt, charts: [], glyphs: .ascii
                        ).json)
                }
                guard try subs(source) == subs(copy) else { throw differ("subs \(id)") }
            }
            return .init(clean: violations.isEmpty, players: ids.count, subscribers: subscribers)
        }

        /// `count` player ids spread evenly over the list's creation order (its first among them).
        static func spread(_ store: any UserStore, count: Int, total: Int) throws -> [String] {
            try spread(store.users(matching: UserSearch(text: "")), count: count, total: total)
        }

        static func spread<P: ListPager>(_ pager: P, count: Int, total: Int) throws -> [String] where P.Row == UserRow {
            guard count > 0, total > 0 else { return [] }
            // Every `step`-th player: a page of `step` rows a jump, keeping its last.
            let step = count >= total ? 1 : max(1, total / count)
            var ids: [String] = []
            var page = try pager.page(.first, limit: 1)
            while let row = page.last, ids.count < count {
                ids.append(row.id)
                page = try pager.page(after: row, limit: step)
                guard page.count == step else { break }
            }
            return ids
        }

        static func encoded<T: Encodable>(_ value: T) throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(value)
        }
    }
}

/// `store copy`: what moved, table by table, and how the copy was verified.
struct StoreCopyCommandReport: CommandReport {
    struct Verified: Encodable {
        /// Whether `check` finds the source (and so the copy) clean.
        var clean: Bool
        /// Players whose `user show --json` was compared on both sides.
        var players: Int
        /// Of those, players whose `subs --json` was compared too.
        var subscribers: Int
    }

    struct JSON: Encodable {
        var from: String
        var to: String
        var rows: Int
        var tables: [String: Int]
        var copySeconds: Double
        var verifySeconds: Double
        var verified: Verified
    }

    var from: String
    var to: String
    var tables: [(name: String, rows: Int)]
    var copySeconds: Double
    var verifySeconds: Double
    var verified: Verified

    var json: JSON {
        JSON(
            from: from, to: to, rows: tables.reduce(0) { $0 + $1.rows },
            tables: Dictionary(tables.map { ($0.name, $0.rows) }, uniquingKeysWith: +),
            copySeconds: (copySeconds * 100).rounded() / 100, verifySeconds: (verifySeconds * 100).rounded() / 100, verified: verified)
    }

    var text: String {
        let rows = tables.reduce(0) { $0 + $1.rows }
        return reportText([
            "copied \(rows.formattedWithSeparators) rows in \(tables.count) tables from \(from) to \(to) in "
                + String(format: "%.1f s", copySeconds),
            "verified: check \(verified.clean ? "clean" : "finds the same violations") on both sides; user show agrees for "
                + "\(verified.players.formattedWithSeparators) players, subs for \(verified.subscribers.formattedWithSeparators) "
                + "(" + String(format: "%.1f s", verifySeconds) + ")",
        ])
    }
}
