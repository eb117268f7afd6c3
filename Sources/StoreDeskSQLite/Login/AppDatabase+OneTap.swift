import Foundation
import GRDB
import StoreDeskCore

extension AppDatabase {
    /// The one-click login simulator as the store keeps it (a fresh one when nothing was kept yet).
    public func oneTapLogin() throws -> OneTapLogin { try reader.read { try Self.loadOneTap(db: $0) } }

    /// The simulator's clock: the store's clock (else `wall`) plus its own offset.
    public func oneTapClock(wall: Instant) throws -> Instant {
        try reader.read { db in try Self.loadOneTap(db: db).now(base: StoreMeta.now(in: db, wall: wall).instant) }
    }

    /// Runs one step of the simulator against its kept state and keeps what it became, in one
    /// transaction, so separate commands continue one flow. The step gets the simulator's clock (the
    /// store's clock, else `wall`, plus the simulator's offset). Only a developer drives it.
    public func oneTap<T: Sendable>(
        by staff: StaffMember, wall: Instant, _ step: (inout OneTapLogin, Instant) throws -> T
    ) throws -> T {
        guard !isReadOnly else { throw StoreError.invalidArgument("the store is open read-only: the one-tap simulator was not changed") }
        if let refusal = staff.refusal(.driveOneTap) { throw StoreError.invalidArgument(refusal) }
        return try writeImmediate { db in
            let before = try Self.loadOneTap(db: db)
            var login = before
            let value = try step(&login, login.now(base: try StoreMeta.now(in: db, wall: wall).instant))
            // A step that changed nothing (a refusal before the carrier answered) leaves the file as it was.
            guard login != before else { return value }
            try Self.saveOneTap(login, db: db)
            if let registration = login.registration, registration != before.registration {
                var audit = AuditEntry(
                    at: try StoreMeta.stamp(StoreMeta.now(in: db, wall: wall).instant, in: db), actor: staff.name, role: staff.role.rawValue, action: "login.onetap.register", subject: "carrier appId \(registration.appId)",
                    detail: "appKey \(Masking.secret(registration.appKey))")
                try audit.insert(db)
            }
            return value
        }
    }

    static func loadOneTap(db: Database) throws -> OneTapLogin {
        var login = OneTapLogin()
        if let row = try Row.fetchOne(db, sql: "SELECT * FROM onetap_simulator WHERE id = 1") {
            if let appId = try row.decode(String?.self, forColumn: "app_id"),
                let appKey = try row.decode(String?.self, forColumn: "app_key")
            {
                login.registration = .init(appId: appId, appKey: appKey)
            }
            login.timeoutMillis = try row.decode(forColumn: "timeout_ms")
            login.network = OneTapLogin.Network(rawValue: try row.decode(forColumn: "network")) ?? .cellular
            login.carrier = OneTapLogin.Carrier(rawValue: try row.decode(forColumn: "carrier")) ?? .chinaMobile
            login.phoneNumber = try row.decode(forColumn: "phone")
            login.gatewayLatencyMillis = try row.decode(forColumn: "gateway_latency_ms")
            login.cachedNumber = try row.decode(forColumn: "cached_number")
            login.clockOffsetMillis = try row.decode(forColumn: "clock_offset_ms")
            login.tokenSerial = try row.decode(forColumn: "token_serial")
        }
        login.tokens = try Row.fetchAll(db, sql: "SELECT * FROM onetap_token ORDER BY issued_at, token").map { row in
            OneTapLogin.Token(
                value: try row.decode(forColumn: "token"), phoneNumber: try row.decode(forColumn: "phone"),
                issuedAt: try row.decode(forColumn: "issued_at"), usedAt: try row.decode(forColumn: "used_at"),
                implicit: try row.decode(forColumn: "implicit"), openId: try row.decode(forColumn: "open_id"))
        }
        return login
    }

    static func saveOneTap(_ login: OneTapLogin, db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO onetap_simulator
                (id, app_id, app_key, timeout_ms, network, carrier, phone, gateway_latency_ms, cached_number, clock_offset_ms, token_serial)
                VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                login.registration?.appId, login.registration?.appKey, login.timeoutMillis, login.network.rawValue,
                login.carrier.rawValue, login.phoneNumber, login.gatewayLatencyMillis, login.cachedNumber,
                login.clockOffsetMillis, login.tokenSerial,
            ])
        try db.execute(sql: "DELETE FROM onetap_token")
        for token in login.tokens {
            try db.execute(
                sql: "INSERT INTO onetap_token (token, phone, issued_at, used_at, implicit, open_id) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [token.value, token.phoneNumber, token.issuedAt.millis, token.usedAt?.millis, token.implicit, token.openId])
        }
    }
}
