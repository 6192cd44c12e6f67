/// Why waiting messages were discarded, as `deleted_messages` spells it.
public enum DeletionReason: String, Sendable, Hashable {
    case tooManyPending = "too_many_pending"
    case deviceInactive = "device_inactive"
}

/// Why a message was collapsed, as the `collapsed` status spells it.
public enum CollapseReason: String, Sendable, Hashable {
    /// Replaced by a newer message with the same key.
    case collapseKey = "collapse_key"
    /// Evicted: a new key exceeded the limit on distinct keys.
    case collapseKeyLimit = "collapse_key_limit"
}

/// A status event about a device's messages (the contract's `fcm.status`), at an event time.
public enum StatusEvent: Sendable, Hashable {
    case queued(messageID: String, at: Int64)
    case dispatched(messageID: String, at: Int64)
    case delivered(messageID: String, at: Int64)
    case collapsed(messageID: String, reason: CollapseReason, replacedBy: String, at: Int64)
    case expired(messageID: String, at: Int64)
    case deletedMessages(reason: DeletionReason, count: Int, messageIDs: [String], at: Int64)
}

/// A record for the device's inbox.
public enum InboxRecord: Sendable, Hashable {
    /// A message, written around its `apns` object (``QueuedMessage/withAPNs(_:)``).
    case message(QueuedMessage)
    /// The notice that messages were deleted, ahead of anything newer.
    case deletedMessages(reason: DeletionReason, count: Int)
}

/// What one input did to a device: inbox records to write, status events to publish and state
/// changes to record, each in order.
public struct QueueOutput: Sendable, Hashable {
    /// Records for the device's inbox.
    public var inbox: [InboxRecord] = []
    /// Status events about the device's messages.
    public var statuses: [StatusEvent] = []
    /// Changes to the device's state, for the changelog.
    public var changes: [StateChange] = []

    public init() {}
}
