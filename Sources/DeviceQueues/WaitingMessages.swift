/// A device's waiting messages in send order, with what the queue's rules ask of them kept
/// beside the list, so that a send to an offline device usually reads none of the messages.
///
/// Each waiting message is an allocation of its own, and with many devices waiting each one
/// read is a cache miss: checking a send against ten waiting messages cost more than the rest
/// of the queue's work. So the list keeps two hints (16 bytes a device), updated as messages
/// come and go:
/// - a time no message expires before (a lower bound: a removal leaves it as it was);
/// - a bit for each waiting message's id (``QueuedMessage/idBit``), and possibly for removed
///   ones: a clear bit says that no waiting message has such an id.
///
/// A send still reads the messages when a hint says one may match (its id's bit is taken, or
/// a message may have expired), when it has a collapse key, or when the list is as long as the
/// pending limit. The hints are what the messages are, never state of their own: two lists are
/// equal when their messages are, and both are reset when the list is emptied.
public struct WaitingMessages: Sendable, Hashable, RandomAccessCollection {
    private var messages: [QueuedMessage] = []
    /// No waiting message has an `expiresAt` before this.
    private(set) var expiresNoEarlierThan = Int64.max
    /// The union of the waiting messages' ``QueuedMessage/idBit``s, and of those removed one at a
    /// time since the list was last emptied or an expiry pass rebuilt it.
    private(set) var idBits: UInt64 = 0

    /// No messages.
    public init() {}

    /// The oldest message's position.
    public var startIndex: Int { messages.startIndex }
    /// The position after the newest message.
    public var endIndex: Int { messages.endIndex }
    /// The message at `position`, counted from the oldest.
    public subscript(position: Int) -> QueuedMessage { messages[position] }

    /// Whether a message with the id of `message` waits.
    func contains(idOf message: QueuedMessage) -> Bool {
        guard idBits & message.idBit != 0 else { return false }
        let id = message.id
        return messages.contains { $0.hasID(id) }
    }

    /// Whether at least `limit` messages without a collapse key wait. Reads the messages only
    /// when there are that many of any kind.
    func hasPlain(atLeast limit: Int) -> Bool {
        messages.count >= limit && messages.count { !$0.isCollapsible } >= limit
    }

    /// Whether a message may have expired by `time`: false means none has.
    func mayHaveExpired(by time: Int64) -> Bool { expiresNoEarlierThan <= time }

    /// Adds `message` after the others.
    mutating func append(_ message: QueuedMessage) {
        messages.append(message)
        if let expiresAt = message.expiresAt { expiresNoEarlierThan = Swift.min(expiresNoEarlierThan, expiresAt) }
        idBits |= message.idBit
    }

    /// Removes and returns the message at `index`.
    mutating func remove(at index: Int) -> QueuedMessage {
        let message = messages.remove(at: index)
        if messages.isEmpty { self = WaitingMessages() }
        return message
    }

    /// Removes and returns every message, in send order.
    mutating func removeAll() -> [QueuedMessage] {
        defer { self = WaitingMessages() }
        return messages
    }

    /// Removes and returns, in send order, the messages whose `expiresAt` is `time` or earlier.
    mutating func removeExpired(by time: Int64) -> [QueuedMessage] {
        guard mayHaveExpired(by: time) else { return [] }
        var expired: [QueuedMessage] = []
        var kept = WaitingMessages()
        for message in messages {
            if let expiresAt = message.expiresAt, expiresAt <= time {
                expired.append(message)
            } else {
                kept.append(message)
            }
        }
        self = kept
        return expired
    }

    /// Lists are equal when their messages are, whatever their hints.
    public static func == (lhs: WaitingMessages, rhs: WaitingMessages) -> Bool { lhs.messages == rhs.messages }

    /// Hashes the messages only.
    public func hash(into hasher: inout Hasher) { hasher.combine(messages) }
}
