import DeviceQueues
import FCMTranslation

/// The inbox topic's JSON values, per the contract's "Output: inbox".
enum InboxEncoding {
    /// The `kind` header and field of a message.
    static let messageKind: StaticString = "message"
    /// The `kind` header and field of a notice that messages were deleted.
    static let deletedMessagesKind: StaticString = "deleted_messages"

    /// Writes `{"apns": {...}, "kind": "message", "message_id": ..., "sent_at": ..., "token": ...}`,
    /// with `writeAPNs` writing the `apns` object; stops where `writeAPNs` returns false.
    static func writeMessage(
        token: String, messageID: String, sentAt: Int64, to output: inout ByteWriter, apns writeAPNs: (inout ByteWriter) -> Bool
    ) {
        output.append(#"{"apns":"#)
        guard writeAPNs(&output) else { return }
        output.append(#","kind":"message","message_id":"#)
        JSONOutput.writeString(messageID, to: &output)
        output.append(#","sent_at":"#)
        JSONOutput.writeInteger(sentAt, to: &output)
        output.append(#","token":"#)
        JSONOutput.writeString(token, to: &output)
        output.append(UInt8(ascii: "}"))
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
