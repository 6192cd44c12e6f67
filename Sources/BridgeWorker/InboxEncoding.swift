import DeviceQueues
import FCMTranslation

/// The inbox topic's JSON values, per the contract's "Output: inbox".
enum InboxEncoding {
    /// The `kind` header and field of a message.
    static let messageKind = "message"
    /// The `kind` header and field of a notice that messages were deleted.
    static let deletedMessagesKind = "deleted_messages"

    /// `{"apns": {...}, "kind": "message", "message_id": ..., "sent_at": ..., "token": ...}`,
    /// reusing the translated message's payload bytes.
    static func message(token: String, messageID: String, sentAt: Int64, apns: APNsMessage) -> [UInt8] {
        var output = ByteWriter(capacity: apns.jsonBytes.count + token.utf8.count + messageID.utf8.count + 80)
        output.append(#"{"apns":"#)
        output.append(apns.jsonBytes)
        output.append(#","kind":"message","message_id":"#)
        JSONOutput.writeString(messageID, to: &output)
        output.append(#","sent_at":"#)
        JSONOutput.writeInteger(sentAt, to: &output)
        output.append(#","token":"#)
        JSONOutput.writeString(token, to: &output)
        output.append(UInt8(ascii: "}"))
        return output.bytes
    }

    /// `{"count": ..., "kind": "deleted_messages", "reason": ..., "token": ...}`.
    static func deletedMessages(token: String, reason: DeletionReason, count: Int) -> [UInt8] {
        var output = ByteWriter()
        output.append(#"{"count":"#)
        JSONOutput.writeInteger(Int64(count), to: &output)
        output.append(#","kind":"deleted_messages","reason":"#)
        JSONOutput.writeString(reason.rawValue, to: &output)
        output.append(#","token":"#)
        JSONOutput.writeString(token, to: &output)
        output.append(UInt8(ascii: "}"))
        return output.bytes
    }
}
