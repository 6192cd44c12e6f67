/// One device's queue: a pure state machine over send requests and presence events, with their
/// event times. It applies FCM's queueing rules and says what to write to the inbox, which
/// status events to publish and which state changes to record. It knows nothing of Kafka.
public struct DeviceQueue: Sendable, Hashable {
    /// Presence, activity and the pending `deleted_messages` notice.
    public private(set) var status: DeviceStatus
    /// Messages waiting, in send order.
    public private(set) var waiting = WaitingMessages()
    /// Ids dispatched and not yet acknowledged, oldest first (at most the rules'
    /// ``QueueRules/acknowledgementWindow``).
    public private(set) var unacknowledged = UnacknowledgedIDs()

    /// A device first seen at `time` (a send request's or a presence event's event time).
    public init(firstSeenAt time: Int64) {
        status = DeviceStatus(isOnline: false, lastActivity: time, pendingNotice: nil)
    }

    /// A device as a changelog left it: its status, before its other changes are applied.
    public init(status: DeviceStatus) {
        self.status = status
    }

    /// A device whose parts are known whole, as a store's row holds them: its status, the
    /// messages waiting in send order and the ids awaiting `ack`. The caller gives each message
    /// id once (``apply(_:)`` resolves repeats, one list walk each).
    public init(status: DeviceStatus, waiting: [QueuedMessage], unacknowledged: UnacknowledgedIDs) {
        self.status = status
        for message in waiting { self.waiting.append(message) }
        self.unacknowledged = unacknowledged
    }

    /// A device with no state yet: offline, last active at time 0, nothing waiting. What a
    /// changelog record about a device not seen before builds on, and what forgetting leaves.
    public static let blank = DeviceQueue(firstSeenAt: 0)

    /// Whether the device is connected.
    public var isOnline: Bool { status.isOnline }
    /// Event time of the last presence event (or of the first send), in milliseconds.
    public var lastActivity: Int64 { status.lastActivity }
    /// The `deleted_messages` notice the device gets on its next connect, if messages were discarded.
    public var pendingNotice: DeletionNotice? { status.pendingNotice }

    /// A send request's message for this device, at the request's event time.
    public mutating func send(_ message: QueuedMessage, at time: Int64, rules: QueueRules) -> QueueOutput {
        var output = QueueOutput()
        if isOnline {
            // Time to live 0 means now or never: now is still in time; an expiration before the
            // send (an explicit `apns-expiration` in the past) is not.
            if message.expiry(rules) < time {
                output.statuses.append(.expired(messageID: message.id, at: time))
            } else {
                dispatch(message, at: time, rules: rules, into: &output)
            }
            return output
        }
        // A repeat of a waiting message (input processed again after a crash) changes nothing.
        let id = message.id
        if waiting.contains(idOf: message) { return output }
        expireWaiting(at: time, into: &output)
        if message.expiry(rules) <= time {
            output.statuses.append(.expired(messageID: id, at: time))
            return output
        }
        if let key = message.collapseKey {
            // A key's message replaces the one waiting with the same bytes, so each key has at
            // most one message waiting: counting keyed messages counts keys.
            if let index = waiting.firstIndex(where: { $0.hasCollapseKey(key) }) {
                let replaced = remove(at: index, into: &output)
                output.statuses.append(
                    .collapsed(messageID: replaced.id, reason: .collapseKey, replacedBy: id, at: time))
            } else if waiting.count(where: \.isCollapsible) >= rules.maxCollapseKeys,
                let oldest = waiting.firstIndex(where: \.isCollapsible)
            {
                let evicted = remove(at: oldest, into: &output)
                output.statuses.append(
                    .collapsed(messageID: evicted.id, reason: .collapseKeyLimit, replacedBy: id, at: time))
            }
        } else if waiting.hasPlain(atLeast: rules.maxPending) {
            discardAll(plus: [id], reason: .tooManyPending, at: time, into: &output)
            return output
        }
        var queued = message
        // Set only when unset: the message's bytes are shared with its input until written.
        if queued.expiresAt == nil { queued.expiresAt = message.expiry(rules) }
        waiting.append(queued)
        output.changes.append(.enqueued(queued))
        output.statuses.append(.queued(messageID: id, at: time))
        return output
    }

    /// The device connected: the inactivity rule, then expiry, then the pending notice and the
    /// waiting messages in send order.
    public mutating func connect(at time: Int64, rules: QueueRules) -> QueueOutput {
        var output = QueueOutput()
        if time.saturatingSubtract(lastActivity) > rules.inactiveAfter, !waiting.isEmpty {
            discardAll(plus: [], reason: .deviceInactive, at: time, into: &output)
        }
        expireWaiting(at: time, into: &output)
        if let notice = pendingNotice {
            output.inbox.append(.deletedMessages(reason: notice.reason, count: notice.count))
            status.pendingNotice = nil
        }
        for message in waiting.removeAll() {
            output.changes.append(.dequeued(messageID: message.id))
            dispatch(message, at: time, rules: rules, into: &output)
        }
        status.isOnline = true
        status.lastActivity = max(lastActivity, time)
        output.changes.append(.device(status))
        return output
    }

    /// The device disconnected.
    @discardableResult
    public mutating func disconnect(at time: Int64) -> QueueOutput {
        var output = QueueOutput()
        status.isOnline = false
        status.lastActivity = max(lastActivity, time)
        output.changes.append(.device(status))
        return output
    }

    /// The device acknowledged messages: `delivered` for each it was sent; unknown ids are ignored.
    public mutating func acknowledge(_ messageIDs: [String], at time: Int64) -> QueueOutput {
        var output = QueueOutput()
        status.lastActivity = max(lastActivity, time)
        output.changes.append(.device(status))
        for id in messageIDs {
            guard unacknowledged.remove(id) else { continue }
            output.changes.append(.acknowledgementSettled(messageID: id))
            output.statuses.append(.delivered(messageID: id, at: time))
        }
        return output
    }

    /// Whether the device may be forgotten at `time`: nothing waits for it, no notice is pending,
    /// and its last presence event is more than the inactivity limit before `time`.
    public func isIdle(at time: Int64, rules: QueueRules) -> Bool {
        waiting.isEmpty && pendingNotice == nil && time.saturatingSubtract(lastActivity) > rules.inactiveAfter
    }

    /// The changes that forget the device: every id still awaiting an `ack` settled, then
    /// ``StateChange/forgotten``. Its owner removes it; if it is seen again, it starts anew.
    public var forgettingChanges: [StateChange] {
        unacknowledged.all.map(StateChange.acknowledgementSettled(messageID:)) + [.forgotten]
    }

    /// Replays one recorded change (when restoring from a changelog).
    public mutating func apply(_ change: StateChange) {
        switch change {
        case .forgotten:
            self = .blank
        case .device(let status):
            self.status = status
        case .enqueued(let message):
            // Keyed as the changelog is: a message already waiting (its record replayed again)
            // takes this record's place, as compaction keeps the latest record of a key.
            if waiting.contains(idOf: message), let index = waiting.firstIndex(where: { $0.hasID(message.id) }) {
                _ = waiting.remove(at: index)
            }
            waiting.append(message)
        case .dequeued(let id):
            if let index = waiting.firstIndex(where: { $0.hasID(id) }) { _ = waiting.remove(at: index) }
        case .awaitingAcknowledgement(let id):
            _ = unacknowledged.remove(id)
            unacknowledged.append(id)
        case .acknowledgementSettled(let id):
            _ = unacknowledged.remove(id)
        }
    }

    /// Replays a recorded change onto a device that may not be held (nil), as a restore does: a
    /// forgetting removes it, a removal for a device not held creates none (compaction kept the
    /// tombstone, not what it removed), and any other change creates it blank first.
    public static func restore(_ change: StateChange, onto device: inout DeviceQueue?) {
        switch change {
        case .forgotten:
            device = nil
        case .dequeued, .acknowledgementSettled:
            device?.apply(change)
        case .device, .enqueued, .awaitingAcknowledgement:
            if device == nil { device = .blank }
            device?.apply(change)
        }
    }

    private mutating func dispatch(
        _ message: QueuedMessage, at time: Int64, rules: QueueRules, into output: inout QueueOutput
    ) {
        let id = message.id
        output.inbox.append(.message(message))
        output.statuses.append(.dispatched(messageID: id, at: time))
        unacknowledged.append(id)
        output.changes.append(.awaitingAcknowledgement(messageID: id))
        if unacknowledged.count > rules.acknowledgementWindow, let oldest = unacknowledged.removeFirst() {
            output.changes.append(.acknowledgementSettled(messageID: oldest))
        }
    }

    private mutating func remove(at index: Int, into output: inout QueueOutput) -> QueuedMessage {
        let message = waiting.remove(at: index)
        output.changes.append(.dequeued(messageID: message.id))
        return message
    }

    private mutating func expireWaiting(at time: Int64, into output: inout QueueOutput) {
        // Waiting messages carry their expiry, resolved with the rules when queued.
        for expired in waiting.removeExpired(by: time) {
            let id = expired.id
            output.changes.append(.dequeued(messageID: id))
            output.statuses.append(.expired(messageID: id, at: time))
        }
    }

    private mutating func discardAll(
        plus extra: [String], reason: DeletionReason, at time: Int64, into output: inout QueueOutput
    ) {
        var ids: [String] = []
        for message in waiting.removeAll() {
            let id = message.id
            ids.append(id)
            output.changes.append(.dequeued(messageID: id))
        }
        ids += extra
        output.statuses.append(.deletedMessages(reason: reason, count: ids.count, messageIDs: ids, at: time))
        // The count may come from a restored changelog record: it saturates rather than traps.
        let (count, overflow) = (pendingNotice?.count ?? 0).addingReportingOverflow(ids.count)
        status.pendingNotice = DeletionNotice(reason: reason, count: overflow ? .max : count)
        output.changes.append(.device(status))
    }
}
