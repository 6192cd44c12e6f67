import Foundation

/// One record of the status topic: what became of a message or request (the contract's
/// "Output: status").
public struct StatusEvent: Sendable, Hashable, Decodable {
    /// The contract's status types; a type this library does not know keeps its name.
    public enum EventType: Sendable, Hashable, Decodable {
        case queued, dispatched, delivered, collapsed, expired, deletedMessages, rejected, validated
        case subscribed, unsubscribed, fannedOut
        case other(String)

        /// The types the contract names.
        public static let known: [EventType] = [
            .queued, .dispatched, .delivered, .collapsed, .expired, .deletedMessages, .rejected, .validated,
            .subscribed, .unsubscribed, .fannedOut,
        ]

        /// The type's name on the wire.
        public var name: String {
            switch self {
            case .queued: "queued"
            case .dispatched: "dispatched"
            case .delivered: "delivered"
            case .collapsed: "collapsed"
            case .expired: "expired"
            case .deletedMessages: "deleted_messages"
            case .rejected: "rejected"
            case .validated: "validated"
            case .subscribed: "subscribed"
            case .unsubscribed: "unsubscribed"
            case .fannedOut: "fanned_out"
            case .other(let name): name
            }
        }

        public init(from decoder: any Decoder) throws {
            let name = try decoder.singleValueContainer().decode(String.self)
            self = Self.known.first { $0.name == name } ?? .other(name)
        }
    }

    public var type: EventType
    /// The message; nil for `deleted_messages` and requests whose target could not be read.
    public var messageID: String?
    /// The device; nil for undecodable input.
    public var token: String?
    /// The event time: of the record that caused the event, in milliseconds since the epoch.
    public var at: Int64
    /// `collapsed`, `deleted_messages`, `rejected`: why.
    public var reason: String?
    /// `rejected`: what is wrong, naming the field.
    public var detail: String?
    /// `deleted_messages`, `fanned_out`: how many.
    public var count: Int?
    /// `deleted_messages`: the ids of the discarded messages: the full sync's idempotency key.
    public var messageIDs: [String]?
    /// `collapsed`: the message that replaced it.
    public var replacedBy: String?
    /// `subscribed`, `unsubscribed`, `fanned_out` of a topic send: the topic.
    public var topic: String?
    /// `fanned_out` of a condition send: the condition.
    public var condition: String?

    /// The record's value as the bridge wrote it.
    public internal(set) var json: [UInt8] = []
    /// Where the record is: `topic:partition:offset` (set when read from Kafka): the event's
    /// stable id.
    public internal(set) var position = ""
    /// The record's partition (set when read from Kafka).
    public internal(set) var partition: Int32 = 0
    /// The record's key as the bridge wrote it: the device (set when read from Kafka).
    public internal(set) var key: [UInt8]?
    /// The record's timestamp in milliseconds since the epoch (set when read from Kafka).
    public internal(set) var recordTimestamp: Int64?

    private enum CodingKeys: String, CodingKey {
        case type
        case messageID = "message_id"
        case token, at, reason, detail, count
        case messageIDs = "message_ids"
        case replacedBy = "replaced_by"
        case topic, condition
    }

    /// The id of the record at `offset` of `topic`'s `partition`: `topic:partition:offset`.
    public static func position(topic: String, partition: Int32, offset: Int64) -> String {
        "\(topic):\(partition):\(offset)"
    }

    /// Decodes a status record's value.
    public static func decode(_ json: [UInt8]) throws -> StatusEvent {
        var event = try JSONDecoder().decode(StatusEvent.self, from: Data(json))
        event.json = json
        return event
    }
}
