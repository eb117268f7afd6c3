import Foundation
import StoreDeskCore

/// How `:export` and `storedesk user export` write a list.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// A header line, then one line a row (RFC 4180 quoting).
    case csv
    /// One JSON array, one object a row on a line of its own.
    case json
}

/// A row as an export writes it: the same fields in the same order for every row, masked where the
/// screen masks (a phone's last four only).
public protocol ExportableRow {
    static var exportFields: [String] { get }
    /// This row's values, in `exportFields` order; `time` writes an instant (one formatter a whole export).
    func exportValues(time: (Instant) -> String) -> [String]
}

/// Writes a whole list, its filter and order applied, through its `ListPager`: a page at a time (one keyset
/// seek each), so memory holds one page whatever the list's length. The rows go to a new file beside
/// `path` (refusing to write over anything unless `force`, and over anything but a regular file at all:
/// `FileDestination`), which is renamed into place only once complete: a failed or interrupted export
/// leaves no half file under the name asked for, and no hidden one beside it (an error removes it, and
/// SIGINT, SIGTERM or SIGHUP too: `InterruptCleanup`).
public enum ListExport {
    public static let pageSize = 1_000

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }

        /// The export was stopped (the console closed) before `path` was written.
        public static func cancelled(_ path: String) -> Failure { Failure("\(path) not written: the export was stopped") }
    }

    /// Writes every row; returns how many. `cancelled` is asked before each page and before the file
    /// takes its name: once it says yes, the unfinished file is removed and `Failure.cancelled` thrown, the
    /// target untouched. `progress` hears the rows written so far after each page.
    @discardableResult
    public static func write<Row: ExportableRow>(
        _ pager: any ListPager<Row>, format: ExportFormat, to path: String, force: Bool, pageSize: Int = pageSize,
        cancelled: () -> Bool = { false }, progress: (Int) -> Void = { _ in }
    ) throws -> Int {
        try write(
            pager, fields: Row.exportFields, format: format, to: path, force: force, pageSize: pageSize, cancelled: cancelled,
            progress: progress
        ) { $0.exportValues(time: $1) }
    }

    /// Writes every row as `values` gives it, under `fields` (a row whose values depend on more than the
    /// row: a subscription's state at the list's instant); returns how many.
    @discardableResult
    public static func write<Row>(
        _ pager: any ListPager<Row>, fields: [String], format: ExportFormat, to path: String, force: Bool, pageSize: Int = pageSize,
        cancelled: () -> Bool = { false }, progress: (Int) -> Void = { _ in }, values: (Row, (Instant) -> String) -> [String]
    ) throws -> Int {
        let url = URL(fileURLWithPath: path)
        try checkDestination(path, force: force)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".export-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        // Registered before it exists: a signal between the open and the registration would leave it.
        let registration = InterruptCleanup.register([temporary])
        defer { InterruptCleanup.release(registration) }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure("cannot write in \(folder): \(String(cString: strerror(errno)))") }
        let file = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var done = false
        defer { if !done { unlink(temporary) } }

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        func time(_ instant: Instant) -> String { formatter.string(from: instant.date) }
        func put(_ text: String) throws { try file.write(contentsOf: Data(text.utf8)) }

        switch format {
        case .csv: try put(fields.map(csvField).joined(separator: ",") + "\r\n")
        case .json: try put("[")
        }
        var count = 0
        if cancelled() { throw Failure.cancelled(path) }
        var page = try pager.first(limit: pageSize)
        while !page.isEmpty {
            var chunk = ""
            for row in page {
                let written = values(row, time)
                switch format {
                case .csv:
                    chunk += written.map(csvField).joined(separator: ",") + "\r\n"
                case .json:
                    chunk += (count == 0 ? "\n" : ",\n") + "{"
                        + zip(fields, written).map { jsonString($0) + ":" + jsonString($1) }.joined(separator: ",") + "}"
                }
                count += 1
            }
            try put(chunk)
            progress(count)
            guard page.count == pageSize, let last = page.last else { break }
            if cancelled() { throw Failure.cancelled(path) }
            page = try pager.page(after: last, limit: pageSize)
        }
        if format == .json { try put(count == 0 ? "]\n" : "\n]\n") }
        try file.synchronize()
        try file.close()
        if cancelled() { throw Failure.cancelled(path) }
        if force {
            // What is at the name now is judged again, just before it is replaced (the export took a while).
            try checkDestination(path, force: force)
            guard rename(temporary, path) == 0 else { throw Failure("cannot write \(path): \(String(cString: strerror(errno)))") }
        } else {
            // Never over a file that appeared meanwhile: link fails on an existing name.
            guard link(temporary, path) == 0 else {
                throw Failure(errno == EEXIST ? existsText(path) : "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            unlink(temporary)
        }
        done = true
        return count
    }

    /// Refuses `path` unless it is free, or a regular file and `force` (`FileDestination`'s rule: a
    /// symbolic link is refused too, for the rename would replace the link, not write where it leads).
    static func checkDestination(_ path: String, force: Bool) throws {
        switch FileDestination.inspect(path, links: .refused) {
        case .success(.nothing): return
        case .success(.regularFile): if !force { throw Failure(existsText(path)) }
        case .failure(.notRegularFile(let kind)): throw Failure("\(path) is \(kind): an export writes only a new file or over a regular one")
        case .failure(.cannotLook(let reason)): throw Failure("cannot look at \(path): \(reason)")
        }
    }

    static func existsText(_ path: String) -> String { "\(path) exists (export! or --force writes over it)" }

    /// A CSV field: quoted when it holds a comma, a quote or a line break (quotes doubled). A field a
    /// spreadsheet would run as a formula (a player may name themselves `=HYPERLINK(…)`: it starts with
    /// `=`, `+`, `-`, `@`, a tab or a carriage return) is written as text, after a `'`, as OWASP advises.
    package static func csvField(_ value: String) -> String {
        var value = value
        if let first = value.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    package static func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

extension UserRow: ExportableRow {
    public static let exportFields = ["id", "name", "friendly_name", "account_type", "age_band", "phone", "created_at"]

    public func exportValues(time: (Instant) -> String) -> [String] {
        [user.id, user.name, user.friendlyName, user.site.name, user.adultType.name, user.maskedPhone, time(user.createdAt)]
    }
}

extension StoreTransaction: ExportableRow {
    public static let exportFields = ["id", "user_id", "app_id", "product_id", "state", "purchase_date"]

    public func exportValues(time: (Instant) -> String) -> [String] {
        [id, userId, appId, productId, state.rawValue, time(purchaseDate)]
    }
}

extension AuditEntry: ExportableRow {
    public static let exportFields = ["id", "at", "actor", "role", "action", "subject", "detail"]

    public func exportValues(time: (Instant) -> String) -> [String] {
        [id.map(String.init) ?? "", time(at), actor, role, action, subject, detail]
    }
}

extension RestoreRow: ExportableRow {
    public static let exportFields = [
        "transaction_id", "user_id", "product_id", "quantity", "app_id", "status", "prompted_at", "resolved_at", "resolved_by",
        "resolved_role", "reason",
    ]

    public func exportValues(time: (Instant) -> String) -> [String] {
        let r = request
        return [
            r.transactionId, r.userId, r.productId, String(r.quantity), appId, r.status.rawValue, time(r.createdAt),
            r.resolvedAt.map(time) ?? "", r.resolvedBy ?? "", r.resolvedRole ?? "", r.reason ?? "",
        ]
    }
}

extension SubscriptionListRow {
    public static let exportFields = [
        "original_transaction_id", "user_id", "player", "product_id", "state", "expires_date", "auto_renew", "first_purchased",
    ]

    /// The row as the list shows it at `instant` (its state then, its row played forward); a row not yet
    /// bought then keeps its stored state.
    public func exportValues(at instant: Instant, time: (Instant) -> String) -> [String] {
        let info = subscription.info(at: instant)
        return [
            subscription.id, subscription.userId, userName, info?.productId ?? subscription.productId,
            (info?.state ?? subscription.state).rawValue, time(info?.expiresDate ?? subscription.expiresDate),
            (info?.autoRenew ?? subscription.autoRenew) ? "on" : "off", time(subscription.originalPurchaseDate),
        ]
    }
}
