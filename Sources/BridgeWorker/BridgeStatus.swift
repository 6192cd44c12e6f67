import DeviceQueues
import FCMTranslation

/// A status event for the status topic: one of the queue's, or a request's verdict.
enum BridgeStatus: Sendable, Hashable {
    /// What the device's queue did with a message.
    case queue(StatusEvent)
    /// The request was not accepted. `messageID` is the id it would have had, when its target
    /// could be read.
    case rejected(messageID: String?, Rejection, at: Int64)
    /// A dry run passed.
    case validated(messageID: String, at: Int64)

    /// The event time the status is about (its `at`).
    var time: Int64 {
        switch self {
        case .queue(.queued(_, let at)), .queue(.dispatched(_, let at)), .queue(.delivered(_, let at)),
             .queue(.expired(_, let at)), .queue(.collapsed(_, _, _, let at)), .queue(.deletedMessages(_, _, _, let at)),
             .rejected(_, _, let at), .validated(_, let at):
            at
        }
    }

    /// The JSON value, per the contract's "Output: status". `token` is nil for undecodable input.
    func json(token: String?) -> [UInt8] {
        var fields: [String: JSONValue] = [:]
        fields["token"] = token.map(JSONValue.string)
        switch self {
        case .queue(let event):
            switch event {
            case .queued(let id, let at): fields.merge(Self.fields("queued", id, at)) { $1 }
            case .dispatched(let id, let at): fields.merge(Self.fields("dispatched", id, at)) { $1 }
            case .delivered(let id, let at): fields.merge(Self.fields("delivered", id, at)) { $1 }
            case .expired(let id, let at): fields.merge(Self.fields("expired", id, at)) { $1 }
            case .collapsed(let id, let reason, let replacedBy, let at):
                fields.merge(Self.fields("collapsed", id, at)) { $1 }
                fields["reason"] = .string(reason.rawValue)
                fields["replaced_by"] = .string(replacedBy)
            case .deletedMessages(let reason, let count, let ids, let at):
                fields.merge(Self.fields("deleted_messages", nil, at)) { $1 }
                fields["reason"] = .string(reason.rawValue)
                fields["count"] = .integer(count)
                fields["message_ids"] = .array(ids.map(JSONValue.string))
            }
        case .rejected(let id, let rejection, let at):
            fields.merge(Self.fields("rejected", id, at)) { $1 }
            fields["reason"] = .string(rejection.reason.rawValue)
            fields["detail"] = .string(rejection.detail)
        case .validated(let id, let at):
            fields.merge(Self.fields("validated", id, at)) { $1 }
        }
        return JSONValue.object(fields).jsonBytes
    }

    private static func fields(_ type: String, _ messageID: String?, _ at: Int64) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["type": .string(type), "at": .number(String(at))]
        fields["message_id"] = messageID.map(JSONValue.string)
        return fields
    }
}

/// A status event and the device it is about (nil for undecodable input): the status topic's
/// key and value.
struct AddressedStatus: Sendable, Hashable {
    var token: String?
    var status: BridgeStatus
}
