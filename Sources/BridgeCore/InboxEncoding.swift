import DeviceQueues
import FCMTranslation
import NIOCore

/// The inbox topic's JSON values, per the contract's "Output: inbox".
enum InboxEncoding {
    /// The `kind` header and field of a message.
    static let messageKind: StaticString = "message"
    /// The `kind` header and field of a notice that messages were deleted.
    static let deletedMessagesKind: StaticString = "deleted_messages"

    /// Writes `{"apns": {...}, "kind": "message", "message_id": ..., "sent_at": ..., "token": ...}`
    /// around `message`'s `apns` object.
    static func writeMessage(_ message: QueuedMessage, token: String, to output: inout ByteWriter) {
        output.append(#"{"apns":"#)
        message.withAPNs { output.append($0) }
        output.append(#","kind":"message","message_id":"#)
        JSONOutput.writeString(message.id, to: &output)
        output.append(#","sent_at":"#)
        JSONOutput.writeInteger(message.sentAt, to: &output)
        output.append(#","token":"#)
        JSONOutput.writeString(token, to: &output)
        output.append(UInt8(ascii: "}"))
    }

    /// How many bytes ``writeMessage(_:token:to:)`` writes for an `apns` object of `apnsBytes`
    /// bytes: its members' names and punctuation, the send time in decimal, and the id and token
    /// as they are (neither needs escapes: see ``MessageID`` and ``RequestDecoder/tokenProblem(_:)``).
    static func messageBytes(apnsBytes: Int, messageID: String, sentAt: Int64, token: String) -> Int {
        let punctuation = #"{"apns":,"kind":"message","message_id":"","sent_at":,"token":""}"#.utf8.count
        return punctuation + apnsBytes + messageID.utf8.count + JSONOutput.integerByteCount(sentAt) + token.utf8.count
    }

    /// A waiting or forwarded message as the changelog or repartition topic holds it: its fields
    /// from the record's key and headers, and its `apns` object from `value`.
    static func message(id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, stored value: UnsafeRawBufferPointer) -> QueuedMessage {
        let apns = UnsafeRawBufferPointer(rebasing: value[apnsRange(stored: value)])
        return QueuedMessage(id: id, collapseKey: collapseKey, sentAt: sentAt, expiresAt: expiresAt, apns: apns)
    }

    /// ``message(id:collapseKey:sentAt:expiresAt:stored:)-(_,_,_,_,UnsafeRawBufferPointer)`` of a value held in a buffer.
    static func message(id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, stored value: ByteBuffer?) -> QueuedMessage {
        (value ?? ByteBuffer()).withUnsafeReadableBytes { message(id: id, collapseKey: collapseKey, sentAt: sentAt, expiresAt: expiresAt, stored: $0) }
    }

    /// Where the `apns` object is in a message value of the changelog or repartition topic. Such
    /// values once held the whole inbox record, `{"apns":<object>,"kind":"message",...}`; in one
    /// of those, the object ends at the last `,"kind":"message",`. No member of `apns` can hide
    /// that mark after it: the record's last members are an id and a token, strings whose
    /// quotes are escaped.
    static func apnsRange(stored value: UnsafeRawBufferPointer) -> Range<Int> {
        let start = #"{"apns":"#.utf8
        let mark = #","kind":"message","#.utf8
        guard value.starts(with: start), value.count >= start.count + mark.count else { return 0..<value.count }
        for end in stride(from: value.count - mark.count, through: start.count, by: -1)
        where value[end..<(end + mark.count)].elementsEqual(mark) {
            return start.count..<end
        }
        return 0..<value.count
    }

    /// `{"count": ..., "kind": "deleted_messages", "reason": ..., "token": ...}`.
    static func writeDeletedMessages(token: String, reason: DeletionReason, count: Int, to output: inout ByteWriter) {
        output.append(#"{"count":"#)
        JSONOutput.writeInteger(Int64(count), to: &output)
        output.append(#","kind":"deleted_messages","reason":"#)
        JSONOutput.writeString(reason.rawValue, to: &output)
        output.append(#","token":"#)
        JSONOutput.writeString(token, to: &output)
        output.append(UInt8(ascii: "}"))
    }
}
