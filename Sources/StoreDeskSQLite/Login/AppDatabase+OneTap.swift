import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The one-click login simulator on SQLite: `LoginProcedures`, written once for both backends.
extension AppDatabase {
    /// The one-click login simulator as the store keeps it (a fresh one when nothing was kept yet).
    public func oneTapLogin() throws -> OneTapLogin { try reader.read { db in try LoginProcedures.loadOneTap(procedures(db)) } }

    /// The simulator's clock: the store's clock (else `wall`) plus its own offset.
    public func oneTapClock(wall: Instant) throws -> Instant {
        try reader.read { db in try LoginProcedures.oneTapClock(procedures(db), wall: wall) }
    }

    /// Runs one step of the simulator against its kept state and keeps what it became, in one
    /// transaction, so separate commands continue one flow. The step gets the simulator's clock (the
    /// store's clock, else `wall`, plus the simulator's offset). Only a developer drives it.
    public func oneTap<T: Sendable>(
        by staff: StaffMember, wall: Instant, _ step: (inout OneTapLogin, Instant) throws -> T
    ) throws -> T {
        guard !isReadOnly else { throw StoreError.invalidArgument("the store is open read-only: the one-tap simulator was not changed") }
        if let refusal = staff.refusal(.driveOneTap) { throw StoreError.invalidArgument(refusal) }
        return try writeImmediate { db in try LoginProcedures.oneTap(procedures(db), by: staff, wall: wall, step) }
    }
}
