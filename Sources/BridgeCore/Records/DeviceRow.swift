import DeviceQueues
import FCMTranslation

/// One device's whole state as one value, for a store keyed by device: its status, its waiting
/// messages in send order and the ids awaiting `ack`. The parts are the device's changelog values
/// (``ChangelogKind``'s letters, ``DeviceStatusValue``, ``ChangelogMessageValue``) and the ids as
/// ``UnacknowledgedIDs`` holds them (up to a thousand a device: copied, not parsed one by one),
/// framed with little-endian lengths:
///
///     row     := format(1) u32 length, status value, entry*
///     entry   := "m" u32 length, message id, i64 send time, u32 length, message value
///              | "a" u32 length, the ids' entries, u32 length, their shared suffix (once at most)
///
/// ``read(_:)`` resolves a message id given more than once as replaying the changelog does
/// (``DeviceQueue/apply(_:)``): the last one counts, in its place. It does so in one pass, since a
/// row is read whole and may be long.
public enum DeviceRow {
    /// The layout's version, the row's first byte; a row of another version is refused.
    static let format: UInt8 = 1

    /// `device`'s row.
    public static func write(_ device: DeviceQueue) -> [UInt8] {
        var output = ByteWriter(capacity: 256)
        write(device, to: &output)
        return output.withUnsafeBytes { [UInt8]($0) }
    }

    /// Appends `device`'s row to `output`: a store writing many rows reuses one writer.
    public static func write(_ device: DeviceQueue, to output: inout ByteWriter) {
        output.append(format)
        framed(in: &output) { DeviceStatusValue.write(device.status, to: &$0) }
        for message in device.waiting {
            output.append(ChangelogKind.waitingMessage.rawValue)
            framed(in: &output) { $0.append(utf8: message.id) }
            withUnsafeBytes(of: message.sentAt.littleEndian) { output.append($0) }
            let collapseKey = message.collapseKey
            framed(in: &output) { ChangelogMessageValue.write(message, collapseKey: collapseKey, to: &$0) }
        }
        if !device.unacknowledged.isEmpty {
            let ids = device.unacknowledged.stored
            output.append(ChangelogKind.awaitingAcknowledgement.rawValue)
            framed(ids.entries, in: &output)
            framed(ids.sharedSuffix, in: &output)
        }
    }

    /// The device `row` holds. Throws, naming what is wrong, for bytes that are not a row: another
    /// format, a length past the end, a kind that is not a device's, a value that does not read.
    public static func read(_ row: UnsafeRawBufferPointer) throws(MalformedRecord) -> DeviceQueue {
        var reader = RowReader(bytes: row)
        guard let version = reader.byte() else { throw malformed("is empty") }
        guard version == format else { throw malformed("is of format \(version), not \(format)") }
        guard let statusValue = reader.framed(), let status = DeviceStatusValue.read(statusValue) else {
            throw malformed("has no readable status")
        }
        var waiting: [QueuedMessage] = []
        var unacknowledged: UnacknowledgedIDs?
        while let kind = reader.byte() {
            switch ChangelogKind(rawValue: kind) {
            case .waitingMessage:
                guard let id = reader.framed().map({ String(decoding: $0, as: UTF8.self) }),
                    let sentAt = reader.integer(), let value = reader.framed()
                else {
                    throw malformed("has a waiting message cut short")
                }
                let stored = ChangelogMessageValue(value)
                guard let fields = stored.fields else { throw malformed("has a waiting message without its fields") }
                waiting.append(
                    QueuedMessage(
                        id: id, collapseKey: fields.collapseKey, sentAt: sentAt, expiresAt: fields.expiresAt,
                        apns: UnsafeRawBufferPointer(rebasing: value[stored.apns])))
            case .awaitingAcknowledgement:
                guard unacknowledged == nil else { throw malformed("has its ids awaiting ack twice") }
                guard let entries = reader.framed(), let suffix = reader.framed() else {
                    throw malformed("has its ids awaiting ack cut short")
                }
                guard let ids = UnacknowledgedIDs(entries: Array(entries), sharedSuffix: Array(suffix)) else {
                    throw malformed("has ids awaiting ack that do not read")
                }
                unacknowledged = ids
            default:
                throw malformed("has an entry of kind byte \(kind)")
            }
        }
        return DeviceQueue(
            status: status, waiting: lastOfEach(waiting), unacknowledged: unacknowledged ?? UnacknowledgedIDs())
    }

    /// `messages` with each id's last message only, in their order.
    private static func lastOfEach(_ messages: [QueuedMessage]) -> [QueuedMessage] {
        guard messages.count > 1 else { return messages }
        let ids = messages.map(\.id)
        var last: [String: Int] = [:]
        for (index, id) in ids.enumerated() { last[id] = index }
        guard last.count < messages.count else { return messages }
        return messages.indices.filter { last[ids[$0]] == $0 }.map { messages[$0] }
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

    /// A part behind its 32-bit length.
    mutating func framed() -> UnsafeRawBufferPointer? {
        guard let length = take(4).map({ UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }) else {
            return nil
        }
        return take(Int(length))
    }

    private mutating func take(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count <= bytes.count - position else { return nil }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }
}
