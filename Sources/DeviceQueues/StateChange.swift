/// One change to a device's state, as the changelog records it. Each costs O(1) in the queue's
/// length: a queue is never rewritten whole. Replaying a device's changes in order, with
/// ``DeviceQueue/apply(_:)``, rebuilds its state.
public enum StateChange: Sendable, Hashable {
    /// The device's presence, activity and pending notice changed (a small, fixed-size record).
    case device(DeviceStatus)
    /// A message joined the end of the waiting queue.
    case enqueued(QueuedMessage)
    /// A waiting message left the queue: dispatched, collapsed, expired or discarded.
    case dequeued(messageID: String)
    /// A dispatched message now waits for the device's acknowledgement.
    case awaitingAcknowledgement(messageID: String)
    /// A dispatched message no longer waits for one: acknowledged, or pushed out of the window.
    case acknowledgementSettled(messageID: String)
    /// The device is forgotten: it had nothing waiting and no presence event for longer than the
    /// inactivity limit. Replaying it leaves no device.
    case forgotten

    /// The id of the waiting message this change adds to the queue or removes from it; nil for
    /// the other changes. A store with a row per waiting message writes or removes that row.
    public var waitingMessageID: String? {
        switch self {
        case .enqueued(let message): message.id
        case .dequeued(let id): id
        default: nil
        }
    }
}

/// The part of a device's state that is not a list: presence, activity and the pending notice.
public struct DeviceStatus: Sendable, Hashable {
    // Widest first: every device's status is held in its partition's table.
    /// Event time of the last presence event (or of the first send), in milliseconds.
    public var lastActivity: Int64
    /// The `deleted_messages` notice the device gets on its next connect.
    public var pendingNotice: DeletionNotice?
    /// Whether the device is connected.
    public var isOnline: Bool

    /// Creates a status.
    public init(isOnline: Bool, lastActivity: Int64, pendingNotice: DeletionNotice?) {
        self.isOnline = isOnline
        self.lastActivity = lastActivity
        self.pendingNotice = pendingNotice
    }
}

/// Messages discarded since the device last connected: one `deleted_messages` inbox record
/// announces them, with the latest reason and the total count.
public struct DeletionNotice: Sendable, Hashable {
    /// How many messages were discarded in all.
    public var count: Int
    /// Why the latest discard happened.
    public var reason: DeletionReason

    /// Creates a notice.
    public init(reason: DeletionReason, count: Int) {
        self.reason = reason
        self.count = count
    }
}
