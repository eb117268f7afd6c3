import Foundation
import StoreDeskCore
import StoreDeskStoreAPI

extension StoreTimeLine {
    /// The instant a command answers, ages and stamps at: the store's own clock when it keeps one, else
    /// the wall clock, never before the latest stamp the store holds (`StoreTimeLine.now(wall:)`), as the
    /// console, `snapshot`, `serve` and `simulate` do on the same store.
    ///
    ///     let database = try store.open(.readWrite)
    ///     try database.declineRestore(transactionId: id, reason: reason, by: staff, at: database.commandNow().instant)
    func commandNow() throws -> StoreNow { try now(wall: Instant(Date())) }
}

extension StoreNow {
    /// The note a text report ends with (on stderr): which clock it answered at.
    var note: String { "at \(label)" }
}
