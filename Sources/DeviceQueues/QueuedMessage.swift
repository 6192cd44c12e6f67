/// A message accepted for one device: what the queue needs to apply its rules, and the inbox
/// record's bytes to write when the message is dispatched.
public struct QueuedMessage: Sendable, Hashable {
    /// The message's id.
    public var id: String
    /// Its collapse key, if it has one (`apns-collapse-id`).
    public var collapseKey: String?
    /// Event time of its send request, in milliseconds.
    public var sentAt: Int64
    /// When it expires, in milliseconds; nil for the rules' default time to live. Equal to
    /// `sentAt` for a time to live of 0: deliver now or never.
    public var expiresAt: Int64?
    /// The inbox record to write on dispatch.
    public var inboxRecord: [UInt8]

    /// Creates a message.
    public init(id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, inboxRecord: [UInt8]) {
        self.id = id
        self.collapseKey = collapseKey
        self.sentAt = sentAt
        self.expiresAt = expiresAt
        self.inboxRecord = inboxRecord
    }

    func expiry(_ rules: QueueRules) -> Int64 { expiresAt ?? sentAt.saturatingAdd(rules.defaultTimeToLive) }
}
