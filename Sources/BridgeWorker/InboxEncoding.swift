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
        let apnsJSON = apns.jsonBytes
        var output: [UInt8] = []
        output.reserveCapacity(apnsJSON.count + token.utf8.count + messageID.utf8.count + 80)
        output.append(contentsOf: #"{"apns":"#.utf8)
        output.append(contentsOf: apnsJSON)
        output.append(contentsOf: #","kind":"message","message_id":"#.utf8)
        JSONValue.string(messageID).write(to: &output)
        output.append(contentsOf: #","sent_at":"#.utf8)
        output.append(contentsOf: String(sentAt).utf8)
        output.append(contentsOf: #","token":"#.utf8)
        JSONValue.string(token).write(to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }

    /// `{"count": ..., "kind": "deleted_messages", "reason": ..., "token": ...}`.
    static func deletedMessages(token: String, reason: DeletionReason, count: Int) -> [UInt8] {
        JSONValue.object([
            "kind": .string(deletedMessagesKind),
            "token": .string(token),
            "reason": .string(reason.rawValue),
            "count": .integer(count),
        ]).jsonBytes
    }
}
