import Foundation
import StoreDeskCore

/// A game's login entries and the one-click login simulator, written once for both backends. Core decides
/// (who may, `LoginEntryRules`, the simulator's steps); a write locks what it changes (`FOR UPDATE` on
/// PostgreSQL, the simulator by its key) so two machines saving at once write one after the other, each
/// against what the other left.
public enum LoginProcedures {
    /// A game's saved login entries, its third-party AppIDs and its latest changes.
    ///
    /// - Throws: `StoreError.invalidArgument` for an app the store does not know.
    public static func setup(_ db: some StoreSQLTransaction, appId: String, historyLimit: Int) throws -> LoginEntrySetup {
        guard let app = try db.row("SELECT * FROM app WHERE id = \(appId)")?.app() else { throw try unknownApp(appId, db) }
        let configuration = try db.row("SELECT * FROM login_entry_configuration WHERE app_id = \(appId)")?.loginEntryConfiguration()
        let history = try db.rows("SELECT * FROM login_entry_history WHERE app_id = \(appId) ORDER BY id DESC LIMIT \(max(0, historyLimit))")
            .map { try $0.loginEntryHistory() }
        return LoginEntrySetup(app: app, configuration: configuration, history: history)
    }

    /// Saves a game's login entries (nil: back to unconfigured, the SDK's default) with its history line and
    /// an audit line. An unchanged list writes nothing.
    ///
    /// - Returns: the history line written, or nil when the list was already that.
    public static func set(
        _ db: some StoreSQLTransaction, _ entries: [LoginEntry]?, appId: String, by staff: StaffMember, surface: String, at now: Instant
    ) throws -> LoginEntryHistory? {
        guard try db.exists("SELECT 1 FROM app WHERE id = \(appId)\(.sharingRows)") else { throw try unknownApp(appId, db) }
        let now = try db.stamp(now)
        let old = try db.row("SELECT * FROM login_entry_configuration WHERE app_id = \(appId)\(.lockingRows)")?.loginEntryConfiguration()
        guard old == nil || old?.entries != entries else { return nil }
        let text = try entriesText(entries)
        try db.execute(
            """
            INSERT INTO login_entry_configuration (app_id, entries, updated_at, updated_by)
            VALUES (\(appId), \(text), \(now), \(staff.name))
            ON CONFLICT (app_id) DO UPDATE SET entries = excluded.entries, updated_at = excluded.updated_at, updated_by = excluded.updated_by
            """)
        var line = LoginEntryHistory(
            appId: appId, at: now, actor: staff.name, role: staff.role.rawValue, surface: surface, oldEntries: old?.entries, newEntries: entries)
        line.id = try db.row(
            """
            INSERT INTO login_entry_history (app_id, at, actor, role, surface, old_entries, new_entries)
            VALUES (\(appId), \(now), \(line.actor), \(line.role), \(surface), \(try entriesText(old?.entries)), \(text))
            RETURNING id
            """)?.int("id")
        try db.insert(
            AuditEntry(
                at: now, actor: staff.name, role: staff.role.rawValue, action: "login.entries.set", subject: "app \(appId)",
                detail: "\(line.change) (from \(surface))"))
        return line
    }

    /// The refusal of an app the store does not have, naming the ones it has.
    public static func unknownApp(_ appId: String, _ db: some StoreSQLTransaction) throws -> StoreError {
        AppWrites.unknownApp(appId, known: try db.texts("SELECT id FROM app ORDER BY id\(.byteOrder)", column: "id"))
    }

    /// The entries as the store keeps them: a JSON array of the SDK's names, or NULL.
    static func entriesText(_ entries: [LoginEntry]?) throws -> String? {
        try entries.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }

    // MARK: The one-click login simulator

    /// The simulator's clock: the store's clock (else `wall`) plus its own offset.
    public static func oneTapClock(_ db: some StoreSQLTransaction, wall: Instant) throws -> Instant {
        try loadOneTap(db).now(base: try db.now(wall: wall))
    }

    /// Runs one step of the simulator against its kept state and keeps what it became, so separate commands
    /// continue one flow. One simulator a store: every step takes its lock first, so steps from two machines
    /// run one after the other, each on what the other left.
    public static func oneTap<T>(
        _ db: some StoreSQLTransaction, by staff: StaffMember, wall: Instant, _ step: (inout OneTapLogin, Instant) throws -> T
    ) throws -> T {
        try db.serialize(.oneTap)
        let before = try loadOneTap(db)
        var login = before
        let value = try step(&login, login.now(base: try db.now(wall: wall)))
        // A step that changed nothing (a refusal before the carrier answered) leaves the store as it was.
        guard login != before else { return value }
        try saveOneTap(login, db)
        if let registration = login.registration, registration != before.registration {
            try db.insert(
                AuditEntry(
                    at: try db.stamp(try db.now(wall: wall)), actor: staff.name, role: staff.role.rawValue, action: "login.onetap.register",
                    subject: "carrier appId \(registration.appId)", detail: "appKey \(Masking.secret(registration.appKey))"))
        }
        return value
    }

    /// The one-click login simulator as the store keeps it (a fresh one when nothing was kept yet).
    public static func loadOneTap(_ db: some StoreSQLTransaction) throws -> OneTapLogin {
        var login = OneTapLogin()
        if let row = try db.row("SELECT * FROM onetap_simulator WHERE id = 1") {
            if let appId = try row.optionalText("app_id"), let appKey = try row.optionalText("app_key") {
                login.registration = .init(appId: appId, appKey: appKey)
            }
            login.timeoutMillis = Int(try row.int("timeout_ms"))
            login.network = OneTapLogin.Network(rawValue: try row.text("network")) ?? .cellular
            login.carrier = OneTapLogin.Carrier(rawValue: try row.text("carrier")) ?? .chinaMobile
            login.phoneNumber = try row.text("phone")
            login.gatewayLatencyMillis = Int(try row.int("gateway_latency_ms"))
            login.cachedNumber = try row.optionalText("cached_number")
            login.clockOffsetMillis = try row.int("clock_offset_ms")
            login.tokenSerial = Int(try row.int("token_serial"))
        }
        login.tokens = try db.rows("SELECT * FROM onetap_token ORDER BY issued_at, token\(.byteOrder)").map { row in
            OneTapLogin.Token(
                value: try row.text("token"), phoneNumber: try row.text("phone"), issuedAt: try row.instant("issued_at"),
                usedAt: try row.optionalInstant("used_at"), implicit: try row.flag("implicit"), openId: try row.optionalText("open_id"))
        }
        return login
    }

    static func saveOneTap(_ login: OneTapLogin, _ db: some StoreSQLTransaction) throws {
        try db.execute(
            """
            INSERT INTO onetap_simulator (id, app_id, app_key, timeout_ms, network, carrier, phone, gateway_latency_ms,
              cached_number, clock_offset_ms, token_serial)
            VALUES (1, \(login.registration?.appId), \(login.registration?.appKey), \(login.timeoutMillis), \(login.network.rawValue),
              \(login.carrier.rawValue), \(login.phoneNumber), \(login.gatewayLatencyMillis), \(login.cachedNumber), \(login.clockOffsetMillis),
              \(login.tokenSerial))
            ON CONFLICT (id) DO UPDATE SET app_id = excluded.app_id, app_key = excluded.app_key, timeout_ms = excluded.timeout_ms,
              network = excluded.network, carrier = excluded.carrier, phone = excluded.phone,
              gateway_latency_ms = excluded.gateway_latency_ms, cached_number = excluded.cached_number,
              clock_offset_ms = excluded.clock_offset_ms, token_serial = excluded.token_serial
            """)
        try db.execute("DELETE FROM onetap_token")
        for token in login.tokens {
            try db.execute(
                """
                INSERT INTO onetap_token (token, phone, issued_at, used_at, implicit, open_id)
                VALUES (\(token.value), \(token.phoneNumber), \(token.issuedAt), \(token.usedAt), \(token.implicit ? 1 : 0), \(token.openId))
                """)
        }
    }
}
