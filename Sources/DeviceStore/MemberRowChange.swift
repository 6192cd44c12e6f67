/// A topic's member joined or left, to write to the member rows of the topic's partition
/// (``DeviceRows``).
public struct MemberRowChange: Sendable, Hashable {
    /// The topic's name.
    public var topic: String
    /// The member's token.
    public var token: String
    /// Whether the device is a member after the change.
    public var isMember: Bool

    /// `token` joined (`isMember`) or left `topic`.
    public init(topic: String, token: String, isMember: Bool) {
        self.topic = topic
        self.token = token
        self.isMember = isMember
    }
}
