import DeviceQueues
import FCMTranslation

/// The repartition topic's records: inputs forwarded to the partition that owns their device,
/// keyed by token, with the original event time as the record's CreateTime.
///
/// The `kind` header says what the input is: `message` (value: its `apns` object; headers
/// `message-id`, `collapse-key`, `expires-at`), `connect`, `disconnect`, `ack` (value: the
/// acknowledged ids as a JSON array), or `subscribe` / `unsubscribe` (header `topic`). The
/// `source` header names the input record's place, `topic:partition:offset`, by which the
/// forwarding worker knows when it is back.
///
/// A membership change on its way to its topic's state partition is `join` / `leave` / `forget`
/// (a forgotten device's leave; header `topic`), keyed by the device's token too, with no
/// `source`: it is no input of the device's.
struct RepartitionCodec: Sendable {
    let topic: String

    /// The `source` header of an input forwarded from `record`.
    static func source(of record: some InputRecord) -> String {
        "\(record.topic):\(record.partition):\(record.offset)"
    }

    /// Writes the record that forwards `routed`, read from `source`, to state partition `partition`.
    func record(_ routed: RoutedInput, source: String, partition: Int32, to outputs: inout OutputRecords) {
        outputs.begin(.repartition, partition: partition, timestamp: routed.time)
        outputs.key { $0.append(utf8: routed.token) }
        outputs.header("source", text: source)
        switch routed.input {
        case .send(let message):
            outputs.value { value in message.withAPNs { value.append($0) } }
            outputs.header("kind") { $0.append("message") }
            outputs.header("message-id", text: message.id)
            if let key = message.collapseKey { outputs.header("collapse-key", text: key) }
            if let expiresAt = message.expiresAt { outputs.header("expires-at", integer: expiresAt) }
        case .presence(.connect):
            outputs.value { _ in }
            outputs.header("kind") { $0.append("connect") }
        case .presence(.disconnect):
            outputs.value { _ in }
            outputs.header("kind") { $0.append("disconnect") }
        case .presence(.acknowledge(let ids)):
            outputs.value { JSONValue.array(ids.map(JSONValue.string)).write(to: &$0) }
            outputs.header("kind") { $0.append("ack") }
        case .subscription(let action, let topic):
            outputs.value { _ in }
            outputs.header("kind", text: action.rawValue)
            outputs.header("topic", text: topic)
        }
    }

    /// Writes the record that takes `change` to its topic's state partition `partition`.
    func record(_ change: MembershipChange, partition: Int32, to outputs: inout OutputRecords) {
        outputs.begin(.repartition, partition: partition, timestamp: change.time)
        outputs.key { $0.append(utf8: change.token) }
        outputs.value { _ in }
        outputs.header("kind") {
            $0.append(change.isForgetting ? "forget" : change.action == .subscribe ? "join" : "leave")
        }
        outputs.header("topic", text: change.topic)
    }

    /// A repartition record's `source` header; for a record written before there was one, the
    /// record's own place.
    static func forwardedSource(of record: some InputRecord) -> String {
        record.header("source") ?? source(of: record)
    }

    /// What a repartition record carries: an input for a device, with its
    /// ``forwardedSource(of:)``, a membership change for a topic, or a fan-out's step.
    enum Carried {
        case device(RoutedInput, source: String)
        case membership(MembershipChange)
        case fanOut(FanOutRecord)
    }

    /// Writes the record that carries `carried` to state partition `partition`, as it was.
    func record(_ carried: Carried, partition: Int32, to outputs: inout OutputRecords) {
        switch carried {
        case .device(let routed, let source): record(routed, source: source, partition: partition, to: &outputs)
        case .membership(let change): record(change, partition: partition, to: &outputs)
        case .fanOut(let fanOut): record(fanOut, partition: partition, to: &outputs)
        }
    }

    /// What a repartition record carries.
    func carried(by record: some InputRecord) throws(MalformedRecord) -> Carried {
        let kind = record.header("kind")
        if let kind, FanOutRecord.kinds.contains(kind) { return .fanOut(try fanOut(record, kind: kind)) }
        guard let token = RecordFields.text(record.key), let time = record.createTime else {
            throw MalformedRecord(description: "repartition record at \(record.position) has no key or timestamp")
        }
        if kind == "join" || kind == "leave" || kind == "forget" {
            return .membership(
                MembershipChange(
                    topic: try Self.topic(of: record), token: token, action: kind == "join" ? .subscribe : .unsubscribe,
                    time: time, isForgetting: kind == "forget"))
        }
        let input: DeviceInput
        switch kind {
        case "message":
            guard let id = record.header("message-id") else {
                throw MalformedRecord(description: "repartition message at \(record.position) has no message-id header")
            }
            input = .send(
                InboxEncoding.message(
                    id: id, collapseKey: record.header("collapse-key"), sentAt: time,
                    expiresAt: record.integerHeader("expires-at"), stored: record.value
                ))
        case "connect":
            input = .presence(.connect)
        case "disconnect":
            input = .presence(.disconnect)
        case "ack":
            guard let bytes = RecordFields.bytes(record.value), case .array(let ids)? = try? JSONParser.parse(bytes)
            else {
                throw MalformedRecord(description: "repartition ack at \(record.position) has no JSON array of ids")
            }
            input = .presence(.acknowledge(messageIDs: ids.compactMap(\.stringValue)))
        case "subscribe", "unsubscribe":
            input = .subscription(kind == "subscribe" ? .subscribe : .unsubscribe, topic: try Self.topic(of: record))
        case let kind:
            throw MalformedRecord(
                description: "repartition record at \(record.position) is of unknown kind \(kind ?? "nil")")
        }
        return .device(RoutedInput(token: token, input: input, time: time), source: Self.forwardedSource(of: record))
    }

    /// The `topic` header of a subscription or membership record.
    private static func topic(of record: some InputRecord) throws(MalformedRecord) -> String {
        guard let topic = record.header("topic") else {
            throw MalformedRecord(description: "repartition record at \(record.position) has no topic header")
        }
        return topic
    }
}
