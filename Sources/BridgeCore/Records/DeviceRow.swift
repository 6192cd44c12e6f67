import DeviceQueues
import FCMTranslation

/// One device's whole state as one value, for a store keyed by device: its status, its waiting
/// messages in send order and the ids awaiting `ack`, oldest first. The parts are the device's
/// changelog values (``ChangelogKind``'s letters, ``DeviceStatusValue``,
/// ``ChangelogMessageValue``), framed with little-endian lengths:
///
///     row     := format(1) u32 length, status value, entry*
///     entry   := "m" u32 length, message id, i64 send time, u32 length, message value
///              | "a" u32 length, message id
///
/// ``read(_:)`` rebuilds the device through ``DeviceQueue/apply(_:)``, the function that applies
/// the changelog's records, so a row and a replay of the device's records give the same device.
public enum DeviceRow {
    /// The layout's version, the row's first byte; a row of another version is refused.
    static let format: UInt8 = 1

    /// `device`'s row.
    public static func write(_ device: DeviceQueue) -> [UInt8] {
        var output = ByteWriter(capacity: 256)
        output.append(format)
        framed(in: &output) { DeviceStatusValue.write(device.status, to: &$0) }
        for message in device.waiting {
            output.append(ChangelogKind.waitingMessage.rawValue)
            framed(in: &output) { $0.append(utf8: message.id) }
            withUnsafeBytes(of: message.sentAt.littleEndian) { output.append($0) }
            let collapseKey = message.collapseKey
            framed(in: &output) { ChangelogMessageValue.write(message, collapseKey: collapseKey, to: &$0) }
        }
        for id in device.unacknowledged.all {
            output.append(ChangelogKind.awaitingAcknowledgement.rawValue)
            framed(in: &output) { $0.append(utf8: id) }
        }
        return output.withUnsafeBytes { [UInt8]($0) }
    }

    /// The device `row` holds. Throws, naming what is wrong, for bytes ``write(_:)`` does not
    /// write: another format, a length past the end, a kind that is not a device's, a value
    /// that does not read.
    public static func read(_ row: UnsafeRawBufferPointer) throws(MalformedRecord) -> DeviceQueue {
        var reader = RowReader(bytes: row)
        guard let version = reader.byte() else { throw malformed("is empty") }
        guard version == format else { throw malformed("is of format \(version), not \(format)") }
        guard let statusValue = reader.framed(), let status = DeviceStatusValue.read(statusValue) else {
            throw malformed("has no readable status")
        }
        var device = DeviceQueue(status: status)
        while let kind = reader.byte() {
            guard let id = reader.framed().map({ String(decoding: $0, as: UTF8.self) }) else {
                throw malformed("has an entry cut short")
            }
            switch ChangelogKind(rawValue: kind) {
            case .waitingMessage:
                guard let sentAt = reader.integer(), let value = reader.framed() else {
                    throw malformed("has a waiting message cut short")
                }
                let stored = ChangelogMessageValue(value)
                guard let fields = stored.fields else { throw malformed("has a waiting message without its fields") }
                device.apply(
                    .enqueued(
                        QueuedMessage(
                            id: id, collapseKey: fields.collapseKey, sentAt: sentAt, expiresAt: fields.expiresAt,
                            apns: UnsafeRawBufferPointer(rebasing: value[stored.apns]))))
            case .awaitingAcknowledgement:
                device.apply(.awaitingAcknowledgement(messageID: id))
            default:
                throw malformed("has an entry of kind byte \(kind)")
            }
        }
        return device
    }

    /// Appends what `body` writes, behind its length.
    private static func framed(in output: inout ByteWriter, _ body: (inout ByteWriter) -> Void) {
        let part = ByteWriter.array(body)
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
