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
    /// A subscription request took effect for the device: it joined or left `topic`.
    case subscription(SubscriptionRequest.Action, topic: String, at: Int64)
    /// A topic or condition send reached `count` devices.
    case fannedOut(messageID: String, count: Int, at: Int64)

    /// The event time the status is about (its `at`).
    var time: Int64 {
        switch self {
        case .queue(.queued(_, let at)), .queue(.dispatched(_, let at)), .queue(.delivered(_, let at)),
            .queue(.expired(_, let at)), .queue(.collapsed(_, _, _, let at)), .queue(.deletedMessages(_, _, _, let at)),
            .rejected(_, _, let at), .validated(_, let at), .subscription(_, _, let at), .fannedOut(_, _, let at):
            at
        }
    }

    /// Writes the JSON value, per the contract's "Output: status", members in name order.
    /// `token` is nil for undecodable input; `target` is a topic or condition send's.
    func write(token: String?, target: TopicTarget? = nil, to writer: inout ByteWriter) {
        switch self {
        case .queue(let event):
            switch event {
            case .queued(let id, let at): writer.simple("queued", id, at, token)
            case .dispatched(let id, let at): writer.simple("dispatched", id, at, token)
            case .delivered(let id, let at): writer.simple("delivered", id, at, token)
            case .expired(let id, let at): writer.simple("expired", id, at, token)
            case .collapsed(let id, let reason, let replacedBy, let at):
                writer.begin(at: at)
                writer.string("message_id", id)
                writer.string("reason", reason.rawValue)
                writer.string("replaced_by", replacedBy)
                writer.end(type: "collapsed", token: token)
            case .deletedMessages(let reason, let count, let ids, let at):
                writer.begin(at: at)
                writer.integer("count", Int64(count))
                writer.strings("message_ids", ids)
                writer.string("reason", reason.rawValue)
                writer.end(type: "deleted_messages", token: token)
            }
        case .rejected(let id, let rejection, let at):
            writer.begin(at: at, target: target)
            writer.string("detail", rejection.detail)
            if let id { writer.string("message_id", id) }
            writer.string("reason", rejection.reason.rawValue)
            writer.end(type: "rejected", token: token, target: target)
        case .validated(let id, let at):
            writer.begin(at: at, target: target)
            writer.string("message_id", id)
            writer.end(type: "validated", token: token, target: target)
        case .fannedOut(let id, let count, let at):
            writer.begin(at: at, target: target)
            writer.integer("count", Int64(count))
            writer.string("message_id", id)
            writer.end(type: "fanned_out", token: nil, target: target)
        case .subscription(let action, let topic, let at):
            writer.begin(at: at)
            if let token { writer.string("token", token) }  // before `topic`, in name order
            writer.string("topic", topic)
            writer.end(type: action == .subscribe ? "subscribed" : "unsubscribed", token: nil)
        }
    }
}

/// Writing a status object's members, which callers give in name order.
extension ByteWriter {
    /// `{"at":...`: every status begins with its event time, the first member in name order.
    fileprivate mutating func begin(at: Int64) {
        append(#"{"at":"#)
        JSONOutput.writeInteger(at, to: &self)
    }

    /// ``begin(at:)``, then a condition send's `condition`, next in name order.
    fileprivate mutating func begin(at: Int64, target: TopicTarget?) {
        begin(at: at)
        if let target, target.kind == .condition { string("condition", target.text) }
    }

    fileprivate mutating func member(_ name: StaticString) {
        appendMemberName(name, first: false)
    }

    fileprivate mutating func integer(_ key: StaticString, _ value: Int64) {
        member(key)
        JSONOutput.writeInteger(value, to: &self)
    }

    fileprivate mutating func string(_ key: StaticString, _ value: String) {
        member(key)
        JSONOutput.writeString(value, to: &self)
    }

    fileprivate mutating func strings(_ key: StaticString, _ values: [String]) {
        member(key)
        append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            JSONOutput.writeString(value, to: &self)
        }
        append(UInt8(ascii: "]"))
    }

    /// `at`, `message_id`, `token`, `type`.
    fileprivate mutating func simple(_ type: StaticString, _ id: String, _ at: Int64, _ token: String?) {
        begin(at: at)
        string("message_id", id)
        end(type: type, token: token)
    }

    /// `token` (when known) and `type`, the last members in name order, and the closing brace.
    fileprivate mutating func end(type: StaticString, token: String?, target: TopicTarget? = nil) {
        if let token { string("token", token) }
        if let target, target.kind == .topic { string("topic", target.text) }
        member("type")
        append(UInt8(ascii: "\""))
        append(type)
        append(#""}"#)
    }
}

/// A status event and the device it is about (nil for undecodable input), or the topic or
/// condition send: the status topic's key (the token, or the send's first topic) and value.
struct AddressedStatus: Sendable, Hashable {
    var token: String?
    var status: BridgeStatus
    var target: TopicTarget? = nil

    /// The record's key.
    var key: String? { token ?? target?.firstTopic }
}
