import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// A game's login entries and the one-click login simulator on PostgreSQL. Core decides (who may,
/// `LoginEntryRules`, the simulator's steps); a write locks what it changes (`FOR UPDATE`) so two
/// machines saving at once write one after the other, each against what the other left.
extension PostgresStore: LoginEntryStore {
    public func loginEntrySetup(appId: String, historyLimit: Int) throws -> LoginEntrySetup {
        try session.transaction(readOnly: true) { db in
            guard let app = try db.rows("SELECT * FROM app WHERE id = \(appId)").first.map({ try cells($0).app() }) else {
                throw try unknownApp(appId, db)
            }
            let configuration = try db.rows("SELECT * FROM login_entry_configuration WHERE app_id = \(appId)").first
                .map { try cells($0).loginEntryConfiguration() }
            let history = try db.rows(
                "SELECT * FROM login_entry_history WHERE app_id = \(appId) ORDER BY id DESC LIMIT \(Int64(max(0, historyLimit)))"
            ).map { try cells($0).loginEntryHistory() }
            return LoginEntrySetup(app: app, configuration: configuration, history: history)
        }
    }

    @discardableResult
    public func setLoginEntries(_ entries: [LoginEntry]?, appId: String, by staff: StaffMember, surface: String, at now: Instant) throws
        -> LoginEntryHistory?
    {
        try LoginEntrySetup.checkChange(entries, by: staff, readOnly: isReadOnly)
        return try write { db in
            guard !(try db.rows("SELECT 1 FROM app WHERE id = \(appId) FOR SHARE").isEmpty) else { throw try unknownApp(appId, db) }
            let now = try stamp(now, in: db)
            let old = try db.rows("SELECT * FROM login_entry_configuration WHERE app_id = \(appId) FOR UPDATE").first
                .map { try cells($0).loginEntryConfiguration() }
            guard old == nil || old?.entries != entries else { return nil }
            let text = try Self.entriesText(entries)
            try db.run(
                """
                INSERT INTO login_entry_configuration (app_id, entries, updated_at, updated_by)
                VALUES (\(appId), \(text), \(now.millis), \(staff.name))
                ON CONFLICT (app_id) DO UPDATE SET entries = excluded.entries, updated_at = excluded.updated_at,
                  updated_by = excluded.updated_by
                """)
            var line = LoginEntryHistory(
                appId: appId, at: now, actor: staff.name, role: staff.role.rawValue, surface: surface, oldEntries: old?.entries,
                newEntries: entries)
            line.id = try db.rows(
                """
                INSERT INTO login_entry_history (app_id, at, actor, role, surface, old_entries, new_entries)
                VALUES (\(appId), \(now.millis), \(line.actor), \(line.role), \(surface), \(try Self.entriesText(old?.entries)), \(text))
                RETURNING id
                """
            ).first?.decode(Int64.self)
            try db.run(
                """
                INSERT INTO audit_log (at, actor, role, action, subject, detail)
                VALUES (\(now.millis), \(staff.name), \(staff.role.rawValue), 'login.entries.set', \("app \(appId)"),
                  \("\(line.change) (from \(surface))"))
                """)
            return line
        }
    }

    func unknownApp(_ appId: String, _ db: PostgresSession.Transaction) throws -> StoreError {
        let known = try db.rows(#"SELECT id FROM app ORDER BY id COLLATE "C""#).map { try $0.decode(String.self) }
        return AppWrites.unknownApp(appId, known: known)
    }

    /// The entries as the SQLite store keeps them: a JSON array of the SDK's names, or NULL.
    static func entriesText(_ entries: [LoginEntry]?) throws -> String? {
        try entries.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
    }
}

extension PostgresStore: OneTapStore {
    public func oneTapLogin() throws -> OneTapLogin {
        try session.transaction(readOnly: true) { db in try loadOneTap(db) }
    }

    public func oneTapClock(wall: Instant) throws -> Instant {
        try session.transaction(readOnly: true) { db in try loadOneTap(db).now(base: try storeNow(db, wall: wall).instant) }
    }

    public func oneTap<T: Sendable>(by staff: StaffMember, wall: Instant, _ step: (inout OneTapLogin, Instant) throws -> T) throws -> T {
        guard !isReadOnly else { throw StoreError.invalidArgument("the store is open read-only: the one-tap simulator was not changed") }
        if let refusal = staff.refusal(.driveOneTap) { throw StoreError.invalidArgument(refusal) }
        return try write { db in
            // One simulator per store: every step takes its lock first, so steps from two machines run one
            // after the other, each on what the other left.
            try db.run("SELECT pg_advisory_xact_lock(74152027)")
            let before = try loadOneTap(db)
            var login = before
            let value = try step(&login, login.now(base: try storeNow(db, wall: wall).instant))
            guard login != before else { return value }
            try saveOneTap(login, db)
            if let registration = login.registration, registration != before.registration {
                let at = try stamp(try storeNow(db, wall: wall).instant, in: db)
                try db.run(
                    """
                    INSERT INTO audit_log (at, actor, role, action, subject, detail)
                    VALUES (\(at.millis), \(staff.name), \(staff.role.rawValue), 'login.onetap.register',
                      \("carrier appId \(registration.appId)"), \("appKey \(Masking.secret(registration.appKey))"))
                    """)
            }
            return value
        }
    }

    func loadOneTap(_ db: PostgresSession.Transaction) throws -> OneTapLogin {
        var login = OneTapLogin()
        if let row = try db.rows("SELECT * FROM onetap_simulator WHERE id = 1").first {
            let cells = cells(row)
            if let appId = try cells.optionalText("app_id"), let appKey = try cells.optionalText("app_key") {
                login.registration = .init(appId: appId, appKey: appKey)
            }
            login.timeoutMillis = Int(try cells.int("timeout_ms"))
            login.network = OneTapLogin.Network(rawValue: try cells.text("network")) ?? .cellular
            login.carrier = OneTapLogin.Carrier(rawValue: try cells.text("carrier")) ?? .chinaMobile
            login.phoneNumber = try cells.text("phone")
            login.gatewayLatencyMillis = Int(try cells.int("gateway_latency_ms"))
            login.cachedNumber = try cells.optionalText("cached_number")
            login.clockOffsetMillis = try cells.int("clock_offset_ms")
            login.tokenSerial = Int(try cells.int("token_serial"))
        }
        login.tokens = try db.rows("SELECT * FROM onetap_token ORDER BY issued_at, token").map { row in
            let cells = cells(row)
            return OneTapLogin.Token(
                value: try cells.text("token"), phoneNumber: try cells.text("phone"), issuedAt: try cells.instant("issued_at"),
                usedAt: try cells.optionalInstant("used_at"), implicit: try cells.flag("implicit"), openId: try cells.optionalText("open_id"))
        }
        return login
    }

    func saveOneTap(_ login: OneTapLogin, _ db: PostgresSession.Transaction) throws {
        try db.run(
            """
            INSERT INTO onetap_simulator (id, app_id, app_key, timeout_ms, network, carrier, phone, gateway_latency_ms,
              cached_number, clock_offset_ms, token_serial)
            VALUES (1, \(login.registration?.appId), \(login.registration?.appKey), \(Int64(login.timeoutMillis)),
              \(login.network.rawValue), \(login.carrier.rawValue), \(login.phoneNumber), \(Int64(login.gatewayLatencyMillis)),
              \(login.cachedNumber), \(Int64(login.clockOffsetMillis)), \(Int64(login.tokenSerial)))
            ON CONFLICT (id) DO UPDATE SET app_id = excluded.app_id, app_key = excluded.app_key, timeout_ms = excluded.timeout_ms,
              network = excluded.network, carrier = excluded.carrier, phone = excluded.phone,
              gateway_latency_ms = excluded.gateway_latency_ms, cached_number = excluded.cached_number,
              clock_offset_ms = excluded.clock_offset_ms, token_serial = excluded.token_serial
            """)
        try db.run("DELETE FROM onetap_token")
        for token in login.tokens {
            try db.run(
                """
                INSERT INTO onetap_token (token, phone, issued_at, used_at, implicit, open_id)
                VALUES (\(token.value), \(token.phoneNumber), \(token.issuedAt.millis), \(token.usedAt?.millis),
                  \(token.implicit ? Int64(1) : 0), \(token.openId))
                """)
        }
    }
}
