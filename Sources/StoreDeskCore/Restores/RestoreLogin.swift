/// What a login brought back: the open restore prompts of every player on the Apple IDs the player
/// logging in plays from, and which of them this login opened.
public struct RestoreLogin: Hashable, Sendable {
    public struct Player: Hashable, Sendable {
        public var userId: String
        public var prompts: [RestorePrompt]
    }

    public var userId: String
    public var appleIds: [String]
    /// Open prompts, oldest first.
    public var prompts: [RestorePrompt]
    /// The ids of the prompts this login opened (the others were open already).
    public var opened: Set<Int64>

    public init(userId: String, appleIds: [String], prompts: [RestorePrompt], opened: Set<Int64>) {
        self.userId = userId
        self.appleIds = appleIds
        self.prompts = prompts
        self.opened = opened
    }

    /// The prompts per player, as `restoredPayment` hands them back together: the player who logged in
    /// first, then the others on the same Apple IDs by id.
    public var players: [Player] {
        Dictionary(grouping: prompts, by: \.request.userId)
            .map { Player(userId: $0.key, prompts: $0.value) }
            .sorted { ($0.userId == userId ? 0 : 1, $0.userId) < ($1.userId == userId ? 0 : 1, $1.userId) }
    }
}
