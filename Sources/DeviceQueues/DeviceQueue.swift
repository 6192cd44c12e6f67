/// One device's queue: a pure state machine over send requests and presence events, with their
/// event times. It applies FCM's queueing rules and says what to write to the inbox and which
/// status events to publish. It knows nothing of Kafka.
public struct DeviceQueue: Sendable, Hashable {
    /// Whether the device is connected.
    public private(set) var isOnline = false
    /// Event time of the last presence event (or of the first send, for a device first seen
    /// through one), in milliseconds.
    public private(set) var lastActivity: Int64
    /// Messages waiting, in send order.
    public private(set) var waiting: [QueuedMessage] = []
    /// The `deleted_messages` notice the device gets on its next connect, if messages were discarded.
    public private(set) var pendingNotice: DeletionNotice?
    /// Ids dispatched and not yet acknowledged, oldest first (at most ``maximumUnacknowledged``).
    public private(set) var unacknowledged: [String] = []

    /// How many dispatched ids are remembered for acknowledgement.
    public static let maximumUnacknowledged = 1000

    /// A device first seen at `time` (a send request's or a presence event's event time).
    public init(firstSeenAt time: Int64) {
        lastActivity = time
    }

    /// A send request's message for this device, at the request's event time.
    public mutating func send(_ message: QueuedMessage, at time: Int64, rules: QueueRules) -> QueueOutput {
        var output = QueueOutput()
        if isOnline {
            dispatch(message, at: time, into: &output)
            return output
        }
        expireWaiting(at: time, into: &output)
        if message.expiry(rules) <= time {
            output.statuses.append(.expired(messageID: message.id, at: time))
            return output
        }
        if let key = message.collapseKey {
            if let index = waiting.firstIndex(where: { $0.collapseKey == key }) {
                let replaced = waiting.remove(at: index)
                output.statuses.append(.collapsed(messageID: replaced.id, reason: .collapseKey, replacedBy: message.id, at: time))
            } else if Set(waiting.compactMap(\.collapseKey)).count >= rules.maxCollapseKeys,
                      let oldest = waiting.firstIndex(where: { $0.collapseKey != nil }) {
                let evicted = waiting.remove(at: oldest)
                output.statuses.append(.collapsed(messageID: evicted.id, reason: .collapseKeyLimit, replacedBy: message.id, at: time))
            }
        } else if waiting.count(where: { $0.collapseKey == nil }) >= rules.maxPending {
            discardAll(plus: [message.id], reason: .tooManyPending, at: time, into: &output)
            return output
        }
        var queued = message
        queued.expiresAt = message.expiry(rules)
        waiting.append(queued)
        output.statuses.append(.queued(messageID: message.id, at: time))
        return output
    }

    /// The device connected: the inactivity rule, then expiry, then the pending notice and the
    /// waiting messages in send order.
    public mutating func connect(at time: Int64, rules: QueueRules) -> QueueOutput {
        var output = QueueOutput()
        if time - lastActivity > rules.inactiveAfter, !waiting.isEmpty {
            discardAll(plus: [], reason: .deviceInactive, at: time, into: &output)
        }
        expireWaiting(at: time, into: &output)
        if let notice = pendingNotice {
            output.inbox.append(.deletedMessages(reason: notice.reason, count: notice.count))
            pendingNotice = nil
        }
        let flushing = waiting
        waiting.removeAll()
        for message in flushing { dispatch(message, at: time, into: &output) }
        isOnline = true
        lastActivity = max(lastActivity, time)
        return output
    }

    /// The device disconnected.
    public mutating func disconnect(at time: Int64) {
        isOnline = false
        lastActivity = max(lastActivity, time)
    }

    /// The device acknowledged messages: `delivered` for each it was sent; unknown ids are ignored.
    public mutating func acknowledge(_ messageIDs: [String], at time: Int64) -> QueueOutput {
        var output = QueueOutput()
        lastActivity = max(lastActivity, time)
        for id in messageIDs {
            guard let index = unacknowledged.firstIndex(of: id) else { continue }
            unacknowledged.remove(at: index)
            output.statuses.append(.delivered(messageID: id, at: time))
        }
        return output
    }

    private mutating func dispatch(_ message: QueuedMessage, at time: Int64, into output: inout QueueOutput) {
        output.inbox.append(.message(id: message.id, record: message.inboxRecord))
        output.statuses.append(.dispatched(messageID: message.id, at: time))
        unacknowledged.append(message.id)
        if unacknowledged.count > Self.maximumUnacknowledged { unacknowledged.removeFirst() }
    }

    private mutating func expireWaiting(at time: Int64, into output: inout QueueOutput) {
        waiting.removeAll { message in
            // Waiting messages carry their expiry, resolved with the rules when queued.
            guard let expiresAt = message.expiresAt, expiresAt <= time else { return false }
            output.statuses.append(.expired(messageID: message.id, at: time))
            return true
        }
    }

    private mutating func discardAll(plus extra: [String], reason: DeletionReason, at time: Int64, into output: inout QueueOutput) {
        let ids = waiting.map(\.id) + extra
        waiting.removeAll()
        output.statuses.append(.deletedMessages(reason: reason, count: ids.count, messageIDs: ids, at: time))
        pendingNotice = DeletionNotice(reason: reason, count: (pendingNotice?.count ?? 0) + ids.count)
    }
}

/// Messages discarded since the device last connected: one `deleted_messages` inbox record
/// announces them, with the latest reason and the total count.
public struct DeletionNotice: Sendable, Hashable {
    public var reason: DeletionReason
    public var count: Int

    public init(reason: DeletionReason, count: Int) {
        self.reason = reason
        self.count = count
    }
}
