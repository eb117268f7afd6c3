/// A paid purchase that came back unfinished (or was asked back) and waits for support to deliver it.
public struct RestoreRequest: Hashable, Sendable, Codable, Identifiable {
    public var id: Int64?
    public var transactionId: String
    public var userId: String
    public var productId: String
    public var quantity: Int
    public var status: RestoreStatus
    public var createdAt: Instant
    public var resolvedAt: Instant?
    public var resolvedBy: String?
    public var resolvedRole: String?
    public var targetUserId: String?
    public var targetSid: String?
    public var targetRoleId: String?
    public var reason: String?

    public init(
        id: Int64? = nil, transactionId: String, userId: String, productId: String, quantity: Int,
        status: RestoreStatus, createdAt: Instant, resolvedAt: Instant? = nil, resolvedBy: String? = nil,
        resolvedRole: String? = nil, targetUserId: String? = nil, targetSid: String? = nil,
        targetRoleId: String? = nil, reason: String? = nil
    ) {
        self.id = id
        self.transactionId = transactionId
        self.userId = userId
        self.productId = productId
        self.quantity = quantity
        self.status = status
        self.createdAt = createdAt
        self.resolvedAt = resolvedAt
        self.resolvedBy = resolvedBy
        self.resolvedRole = resolvedRole
        self.targetUserId = targetUserId
        self.targetSid = targetSid
        self.targetRoleId = targetRoleId
        self.reason = reason
    }

    public enum CodingKeys: String, CodingKey {
        case id, quantity, status, reason
        case transactionId = "transaction_id"
        case userId = "user_id"
        case productId = "product_id"
        case createdAt = "created_at"
        case resolvedAt = "resolved_at"
        case resolvedBy = "resolved_by"
        case resolvedRole = "resolved_role"
        case targetUserId = "target_user_id"
        case targetSid = "target_sid"
        case targetRoleId = "target_role_id"
    }
}

public enum RestoreStatus: String, Hashable, Sendable, Codable, CaseIterable {
    case open
    case confirmed
    case declined
}
