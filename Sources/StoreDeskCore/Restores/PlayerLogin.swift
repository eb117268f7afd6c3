/// A player logged in. The SDK then asks the App Store again, which hands back every unfinished
/// transaction of the player's Apple ID: the store opens a restore prompt for each dropped order.
public struct PlayerLogin: Hashable, Sendable {
    public var userId: String
    public var at: Instant

    public init(userId: String, at: Instant) {
        self.userId = userId
        self.at = at
    }
}
