import Foundation
import GRDB
import StoreDeskCore
import StoreDeskStoreAPI

/// The support desk's Apple actions on SQLite (migration `v21-apple-support`): `AppleSupportProcedures`,
/// written once for both backends, each write in one IMMEDIATE transaction.
extension AppDatabase: AppleSupportStore {
    public func refund(_ id: String, reason: String, appIssue: Bool, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: reason)
        return try writeImmediate { db in
            try AppleSupportProcedures.refund(procedures(db), id, reason: reason, appIssue: appIssue, by: staff, at: now)
        }
    }

    public func reverseRefund(_ id: String, reason: String, by staff: StaffMember, at now: Instant) throws -> AppleSupportOutcome {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: reason)
        return try writeImmediate { db in try AppleSupportProcedures.reverseRefund(procedures(db), id, reason: reason, by: staff, at: now) }
    }

    public func requestConsumption(transactionId: String, reason: String, by staff: StaffMember, at now: Instant) throws
        -> ConsumptionRequestRecord
    {
        try AppleSupportWrites.check(staff, readOnly: isReadOnly, reason: nil)
        try AppleSupportWrites.checkConsumptionReason(reason)
        return try writeImmediate { db in
            try AppleSupportProcedures.requestConsumption(procedures(db), transactionId: transactionId, reason: reason, by: staff, at: now)
        }
    }

    public func answerConsumption(transactionId: String, _ info: ConsumptionInformation, by actor: AuditActor, at now: Instant) throws
        -> ConsumptionRequestRecord
    {
        guard !isReadOnly else { throw AppleSupportWrites.refusal("the store is open read-only: nothing was changed") }
        return try writeImmediate { db in
            try AppleSupportProcedures.answerConsumption(procedures(db), transactionId: transactionId, info, by: actor, at: now)
        }
    }

    public func consumptionRequests(appId: String?, limit: Int) throws -> [ConsumptionRequestRecord] {
        try reader.read { db in try AppleSupportProcedures.consumptionRequests(procedures(db), appId: appId, limit: limit) }
    }

    public func entitledSubscriptionIds(appId: String, productId: String) throws -> [String] {
        try reader.read { db in try AppleSupportProcedures.entitledSubscriptionIds(procedures(db), appId: appId, productId: productId) }
    }
}
