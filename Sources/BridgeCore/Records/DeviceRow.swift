import DeviceQueues
import FCMTranslation

/// One device's state as rows of a store keyed by device: a small head row (its status, its
/// waiting messages' ids in send order, the ids awaiting `ack`) and a row for each waiting
/// message under its id, so that a message is written once when it joins the queue and removed
/// once when it leaves, however long the queue. The parts are the device's changelog values
/// (``ChangelogKind``'s letters, ``DeviceStatusValue``, ``ChangelogMessageValue``) and the ids as
/// ``UnacknowledgedIDs`` holds them (up to a thousand a device: copied, not parsed one by one),
/// framed with little-endian lengths:
///
///     head    := format(1) u32 length, status value, u32 count, (u32 length, message id)*, ack?
///     ack     := "a" u32 length, the ids' entries, u32 length, their shared suffix
///     message := i64 send time, message value
///
/// A device holds each message id once (a send refuses a repeat, a replay keeps the one given
/// last), so a head that lists an id twice is refused.
public enum DeviceRow {
    /// The layout's version, the head's first byte; a head of another version is refused.
    static let format: UInt8 = 2

    /// What a head row holds: all of a device but its messages' contents.
    public struct Head: Sendable, Hashable {
        /// The device's status.
        public var status: DeviceStatus
        /// Its waiting messages' ids, in send order, each once.
        public var waitingIDs: [String]
        /// Its ids awaiting `ack`.
        public var unacknowledged: UnacknowledgedIDs

        /// The device these parts and `messages`, by id, make. Throws when a waiting message is
        /// not among `messages`, or `messages` holds one the head does not list.
        public func device(messages: [String: QueuedMessage]) throws(MalformedRecord) -> DeviceQueue {
            guard messages.count == waitingIDs.count else {
                throw malformed("lists \(waitingIDs.count) waiting messages, and \(messages.count) are stored")
            }
            var waiting: [QueuedMessage] = []
            waiting.reserveCapacity(waitingIDs.count)
            for id in waitingIDs {
                guard let message = messages[id] else { throw malformed("lists a waiting message that is not stored") }
                waiting.append(message)
            }
            return try device(waiting: waiting)
        }

        /// The device these parts make with `waiting`, the messages read for ``waitingIDs`` in
        /// their order, those not stored left out. Throws when one was not stored.
        public func device(waiting: [QueuedMessage]) throws(MalformedRecord) -> DeviceQueue {
            guard waiting.count == waitingIDs.count else {
                throw malformed("lists \(waitingIDs.count) waiting messages, and \(waiting.count) are stored")
            }
            return DeviceQueue(status: status, waiting: waiting, unacknowledged: unacknowledged)
        }
    }

    /// Appends `device`'s head row to `output`: a store writing many rows reuses one writer.
    public static func writeHead(_ device: DeviceQueue, to output: inout ByteWriter) {
        output.append(format)
        framed(in: &output) { DeviceStatusValue.write(device.status, to: &$0) }
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: device.waiting.count).littleEndian) { output.append($0) }
        for message in device.waiting {
            message.withID { id in framed(in: &output) { $0.append(id) } }
        }
        if !device.unacknowledged.isEmpty {
            let ids = device.unacknowledged.stored
            output.append(ChangelogKind.awaitingAcknowledgement.rawValue)
            framed(ids.entries, in: &output)
            framed(ids.sharedSuffix, in: &output)
        }
    }

    /// Appends the row of waiting message `message` to `output`; its id is the row's key.
    public static func writeMessage(_ message: QueuedMessage, to output: inout ByteWriter) {
        withUnsafeBytes(of: message.sentAt.littleEndian) { output.append($0) }
        let collapseKey = message.collapseKey
        ChangelogMessageValue.write(message, collapseKey: collapseKey, to: &output)
    }

    /// The parts head row `head` holds. Throws, naming what is wrong, for bytes that are not a
    /// head: another format, a length past the end, an id given twice, a value that does not read.
    public static func readHead(_ head: UnsafeRawBufferPointer) throws(MalformedRecord) -> Head {
        var reader = RowReader(bytes: head)
        guard let version = reader.byte() else { throw malformed("is empty") }
        guard version == format else { throw malformed("is of format \(version), not \(format)") }
        guard let statusValue = reader.framed(), let status = DeviceStatusValue.read(statusValue) else {
            throw malformed("has no readable status")
        }
        guard let count = reader.count() else { throw malformed("has no count of waiting messages") }
        var ids: [String] = []
        // Each id takes at least its length's 4 bytes: a count past that is cut short anyway.
        ids.reserveCapacity(min(count, head.count / 4))
        for _ in 0..<count {
            guard let id = reader.framed() else { throw malformed("has its waiting messages' ids cut short") }
            ids.append(String(decoding: id, as: UTF8.self))
        }
        guard Set(ids).count == ids.count else { throw malformed("lists a waiting message twice") }
        var unacknowledged = UnacknowledgedIDs()
        if let kind = reader.byte() {
            guard kind == ChangelogKind.awaitingAcknowledgement.rawValue else {
                throw malformed("has an entry of kind byte \(kind)")
            }
            guard let entries = reader.framed(), let suffix = reader.framed() else {
                throw malformed("has its ids awaiting ack cut short")
            }
            guard let ids = UnacknowledgedIDs(entries: Array(entries), sharedSuffix: Array(suffix)) else {
                throw malformed("has ids awaiting ack that do not read")
            }
            unacknowledged = ids
            guard reader.byte() == nil else { throw malformed("goes on after its ids awaiting ack") }
        }
        return Head(status: status, waitingIDs: ids, unacknowledged: unacknowledged)
    }

    /// The waiting message of id `id` that row `row` holds. Throws, naming what is wrong, for
    /// bytes that are not a message's row.
    public static func readMessage(id: String, _ row: UnsafeRawBufferPointer) throws(MalformedRecord) -> QueuedMessage {
        var reader = RowReader(bytes: row)
        guard let sentAt = reader.integer() else { throw malformed("of a waiting message has no send time") }
        let value = reader.rest()
        let stored = ChangelogMessageValue(value)
        guard let fields = stored.fields else { throw malformed("of a waiting message has not its fields") }
        return QueuedMessage(
            id: id, collapseKey: fields.collapseKey, sentAt: sentAt, expiresAt: fields.expiresAt,
            apns: UnsafeRawBufferPointer(rebasing: value[stored.apns]))
    }

    /// Appends what `body` writes, behind its length, which is filled in once it is written.
    private static func framed(in output: inout ByteWriter, _ body: (inout ByteWriter) -> Void) {
        let start = output.count
        withUnsafeBytes(of: UInt32(0)) { output.append($0) }
        body(&output)
        let length = UInt32(truncatingIfNeeded: output.count - start - 4).littleEndian
        withUnsafeBytes(of: length) { output.overwrite(at: start, with: $0) }
    }

    /// Appends `part` behind its length.
    private static func framed(_ part: [UInt8], in output: inout ByteWriter) {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: part.count).littleEndian) { output.append($0) }
        output.append(part)
    }

    private static func malformed(_ problem: String) -> MalformedRecord {
        MalformedRecord(description: "device row \(problem)")
    }
}

/// Reads a row's parts front to back; every read is checked against the end.
private struct RowReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    mutating func byte() -> UInt8? {
        guard position < bytes.count else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func integer() -> Int64? {
        take(8).map { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
    }

    /// A 32-bit count.
    mutating func count() -> Int? {
        take(4).map { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
    }

    /// A part behind its 32-bit length.
    mutating func framed() -> UnsafeRawBufferPointer? {
        guard let length = count() else { return nil }
        return take(length)
    }

    /// The bytes not read yet.
    mutating func rest() -> UnsafeRawBufferPointer {
        defer { position = bytes.count }
        return UnsafeRawBufferPointer(rebasing: bytes[position...])
    }

    private mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count <= bytes.count - position else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }
}
