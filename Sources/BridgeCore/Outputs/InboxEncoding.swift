import DeviceQueues
import FCMTranslation
import NIOCore

/// The inbox topic's JSON values, per the contract's "Output: inbox".
enum InboxEncoding {
    /// The `kind` header and field of a message.
    static let messageKind: StaticString = "message"
    /// The `kind` header and field of a notice that messages were deleted.
    static let deletedMessagesKind: StaticString = "deleted_messages"
    /// How a value holding a message's `apns` object as its first member starts.
    static let apnsOpening: StaticString = #"{"apns":"#
    /// What follows the `apns` object in such a value: the message's kind, and more members.
    static let messageKindMark: StaticString = #","kind":"message","#

    /// Writes `{"apns": {...}, "kind": "message", "message_id": ..., "sent_at": ..., "token": ...}`
    /// around `message`'s `apns` object.
    static func writeMessage(_ message: QueuedMessage, token: String, to output: inout ByteWriter) {
        output.append(apnsOpening)
        message.withAPNs { output.append($0) }
        output.append(messageKindMark)
        output.append(#""message_id":"#)
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
    static func messageBytes(apnsBytes: Int, messageID: String, sentAt: Int64, tokenBytes: Int) -> Int {
        let punctuation = #"{"apns":,"kind":"message","message_id":"","sent_at":,"token":""}"#.utf8.count
        return punctuation + apnsBytes + messageID.utf8.count + JSONOutput.integerByteCount(sentAt) + tokenBytes
    }

    /// A forwarded message as the repartition topic holds it: its fields from the record's key
    /// and headers, and its `apns` object from `value`. (The changelog's values carry their
    /// fields: ``ChangelogMessageValue``.)
    static func message(
        id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, stored value: UnsafeRawBufferPointer
    ) -> QueuedMessage {
        let apns = UnsafeRawBufferPointer(rebasing: value[apnsRange(stored: value)])
        return QueuedMessage(id: id, collapseKey: collapseKey, sentAt: sentAt, expiresAt: expiresAt, apns: apns)
    }

    /// ``message(id:collapseKey:sentAt:expiresAt:stored:)-(_,_,_,_,UnsafeRawBufferPointer)`` of a value held in a buffer.
    static func message(id: String, collapseKey: String?, sentAt: Int64, expiresAt: Int64?, stored value: ByteBuffer?)
        -> QueuedMessage
    {
        (value ?? ByteBuffer()).withUnsafeReadableBytes {
            message(id: id, collapseKey: collapseKey, sentAt: sentAt, expiresAt: expiresAt, stored: $0)
        }
    }

    /// Where the `apns` object is in a message value of the changelog or repartition topic. Such
    /// values once held the whole inbox record, `{"apns":<object>,"kind":"message",...}`, and a
    /// changelog's do again (``ChangelogMessageValue``); in those, the object ends at the last
    /// `,"kind":"message",`. Any other value is the object.
    static func apnsRange(stored value: UnsafeRawBufferPointer) -> Range<Int> {
        kindMark(in: value)?.apns ?? 0..<value.count
    }

    /// In a value of the form `{"apns":<object>,"kind":"message",<rest>`: where the object is,
    /// and where the rest starts. The object ends at the last `,"kind":"message",`: a mark in
    /// the object comes before it, and none can follow it, since no member after it is named
    /// `kind` and its strings escape their quotes.
    static func kindMark(in value: UnsafeRawBufferPointer) -> (apns: Range<Int>, rest: Int)? {
        let (startCount, markCount) = (apnsOpening.utf8CodeUnitCount, messageKindMark.utf8CodeUnitCount)
        guard value.holds(apnsOpening, at: 0), value.count >= startCount + markCount else { return nil }
        var before = value.count - markCount + 1
        while let comma = value.lastIndex(of: UInt8(ascii: ","), before: before, notBefore: startCount) {
            if value.holds(messageKindMark, at: comma) { return (startCount..<comma, comma + markCount) }
            before = comma
        }
        return nil
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
