import Foundation

/// The part of an inbox record a device acts on (the contract's "Output: inbox").
public struct InboxRecord: Sendable, Hashable, Decodable {
    /// `message`, or a `deleted_messages` notice.
    public var kind: String
    public var token: String
    /// A message's id: what the device acknowledges.
    public var messageID: String?
    /// A notice's reason and the number of messages deleted.
    public var reason: String?
    public var count: Int?

    public var isDeletedMessagesNotice: Bool { kind == "deleted_messages" }

    private enum CodingKeys: String, CodingKey {
        case kind, token
        case messageID = "message_id"
        case reason, count
    }

    public init(kind: String, token: String, messageID: String? = nil, reason: String? = nil, count: Int? = nil) {
        self.kind = kind
        self.token = token
        self.messageID = messageID
        self.reason = reason
        self.count = count
    }

    /// Decodes an inbox record's value; nil when it is not one.
    public static func decode(_ json: [UInt8]) -> InboxRecord? {
        try? JSONDecoder().decode(InboxRecord.self, from: Data(json))
    }
}
