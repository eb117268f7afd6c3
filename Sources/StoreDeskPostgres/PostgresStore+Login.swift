import Foundation
import PostgresNIO
import StoreDeskCore
import StoreDeskStoreAPI

/// A game's login entries and the one-click login simulator on PostgreSQL: `LoginProcedures`, written once
/// for both backends; a write locks what it changes (`FOR UPDATE`, the simulator's advisory lock) so two
/// machines saving at once write one after the other, each against what the other left.
extension PostgresStore: LoginEntryStore {
    public func loginEntrySetup(appId: String, historyLimit: Int) throws -> LoginEntrySetup {
        try session.transaction(readOnly: true) { db in try LoginProcedures.setup(procedures(db), appId: appId, historyLimit: historyLimit) }
    }

    @discardableResult
    public func setLoginEntries(_ entries: [LoginEntry]?, appId: String, by staff: StaffMember, surface: String, at now: Instant) throws
        -> LoginEntryHistory?
    {
        try LoginEntrySetup.checkChange(entries, by: staff, readOnly: isReadOnly)
        return try write { db in try LoginProcedures.set(procedures(db), entries, appId: appId, by: staff, surface: surface, at: now) }
    }

    func unknownApp(_ appId: String, _ db: PostgresSession.Transaction) throws -> StoreError {
        try LoginProcedures.unknownApp(appId, procedures(db))
    }
}

extension PostgresStore: OneTapStore {
    public func oneTapLogin() throws -> OneTapLogin {
        try session.transaction(readOnly: true) { db in try LoginProcedures.loadOneTap(procedures(db)) }
    }

    public func oneTapClock(wall: Instant) throws -> Instant {
        try session.transaction(readOnly: true) { db in try LoginProcedures.oneTapClock(procedures(db), wall: wall) }
    }

    public func oneTap<T: Sendable>(by staff: StaffMember, wall: Instant, _ step: (inout OneTapLogin, Instant) throws -> T) throws -> T {
        guard !isReadOnly else { throw StoreError.invalidArgument("the store is open read-only: the one-tap simulator was not changed") }
        if let refusal = staff.refusal(.driveOneTap) { throw StoreError.invalidArgument(refusal) }
        return try write { db in try LoginProcedures.oneTap(procedures(db), by: staff, wall: wall, step) }
    }
}
