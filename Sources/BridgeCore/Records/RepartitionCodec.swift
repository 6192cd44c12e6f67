import DeviceQueues
import FCMTranslation

/// The repartition topic's records: inputs forwarded to the partition that owns their device,
/// keyed by token, with the original event time as the record's CreateTime.
///
/// The `kind` header says what the input is: `message` (value: its `apns` object; headers
/// `message-id`, `collapse-key`, `expires-at`), `connect`, `disconnect`, `ack` (value: the
/// acknowledged ids as a JSON array). The `source` header names the input record's place,
/// `topic:partition:offset`, by which the forwarding worker knows when it is back.
///
/// A subscription request's devices of one state partition are `subscribe` / `unsubscribe`
/// (header `topic`; value: the tokens, each after a newline), on their way to their partition;
/// from there they go on to the topic's state partition as `join` / `leave` / `forget` (a
/// forgotten device's leave). Both are keyed by their first token, with no `source`: they are no
/// input of one device's; a record with no value names its one device by its key.
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
        }
    }

    /// Writes the record that takes `change` to state partition `partition`: to the devices'
    /// (`toTopic` false), or to the topic's. Its tokens must fit one record
    /// (``MembershipChange/parts(maxBytes:)``).
    func record(_ change: MembershipChange, toTopic: Bool, partition: Int32, to outputs: inout OutputRecords) {
        outputs.begin(.repartition, partition: partition, timestamp: change.time)
        outputs.key { $0.append(utf8: change.tokens.first ?? "") }
        outputs.value { value in
            for token in change.tokens {
                value.append(UInt8(ascii: "\n"))
                value.append(utf8: token)
            }
        }
        outputs.header("kind") {
            switch (toTopic, change.action) {
            case (false, let action): $0.append(utf8: action.rawValue)
            case (true, _) where change.isForgetting: $0.append("forget")
            case (true, .subscribe): $0.append("join")
            case (true, .unsubscribe): $0.append("leave")
            }
        }
        outputs.header("topic", text: change.topic)
    }

    /// A repartition record's `source` header; for a record written before there was one, the
    /// record's own place.
    static func forwardedSource(of record: some InputRecord) -> String {
        record.header("source") ?? source(of: record)
    }

    /// What a repartition record carries: an input for a device, with its
    /// ``forwardedSource(of:)``, devices joining or leaving a topic (to their partition, or to the
    /// topic's), or a fan-out's step.
    enum Carried {
        case device(RoutedInput, source: String)
        case subscription(MembershipChange)
        case membership(MembershipChange)
        case fanOut(FanOutRecord)
    }

    /// Writes the record that carries `carried` to state partition `partition`, as it was.
    func record(_ carried: Carried, partition: Int32, to outputs: inout OutputRecords) {
        switch carried {
        case .device(let routed, let source): record(routed, source: source, partition: partition, to: &outputs)
        case .subscription(let change): record(change, toTopic: false, partition: partition, to: &outputs)
        case .membership(let change): record(change, toTopic: true, partition: partition, to: &outputs)
        case .fanOut(let fanOut): record(fanOut, partition: partition, to: &outputs)
        }
    }

    /// What a repartition record carries.
    /// A record whose `kind` this version does not know is ``MalformedRecord/isUnknownKind``.
    func carried(by record: some InputRecord) throws(MalformedRecord) -> Carried {
        guard let kind = record.header("kind") else {
            throw MalformedRecord(description: "repartition record at \(record.position) has no kind header")
        }
        if FanOutRecord.kinds.contains(kind) { return .fanOut(try fanOut(record, kind: kind)) }
        guard Self.membershipKinds[kind] != nil || Self.deviceKinds.contains(kind) else {
            // A name a newer version could have given a kind stops the worker; anything else is corrupt.
            guard Self.isKindName(kind) else {
                throw MalformedRecord(
                    description: "repartition record at \(record.position) has an unreadable kind header")
            }
            throw MalformedRecord(
                description:
                    "repartition record at \(record.position) is of a kind this version does not know (\(kind))",
                isUnknownKind: true)
        }
        guard let token = RecordFields.text(record.key), let time = record.createTime else {
            throw MalformedRecord(description: "repartition record at \(record.position) has no key or timestamp")
        }
        if let action = Self.membershipKinds[kind] {
            // Tokens read back are checked as a request's are: they become keys and JSON.
            let value = RecordFields.bytes(record.value) ?? []
            // A record with no value names its one device by its key.
            let tokens =
                (value.isEmpty
                ? [token]
                : value.split(separator: UInt8(ascii: "\n")).prefix(
                    SubscriptionRequest.maximumTokens
                ).map { String(decoding: $0, as: UTF8.self) }).filter { RequestDecoder.tokenProblem($0) == nil }
            let change = MembershipChange(
                topic: try Self.topic(of: record), tokens: tokens, action: action.action, time: time,
                isForgetting: kind == "forget")
            return action.toTopic ? .membership(change) : .subscription(change)
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
        default:
            throw MalformedRecord(description: "repartition record at \(record.position) is of no device kind")
        }
        return .device(RoutedInput(token: token, input: input, time: time), source: Self.forwardedSource(of: record))
    }

    /// Whether `kind` is a name as kinds have: 1 to 32 lowercase letters, digits and hyphens.
    private static func isKindName(_ kind: String) -> Bool {
        (1...32).contains(kind.utf8.count)
            && kind.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
    }

    /// The kinds of a device's inputs.
    private static let deviceKinds: Set<String> = ["message", "connect", "disconnect", "ack"]

    /// The kinds of subscription and membership records: the action, and whether the record goes
    /// to the topic's partition.
    private static let membershipKinds: [String: (action: SubscriptionRequest.Action, toTopic: Bool)] = [
        "subscribe": (.subscribe, false), "unsubscribe": (.unsubscribe, false), "join": (.subscribe, true),
        "leave": (.unsubscribe, true), "forget": (.unsubscribe, true),
    ]

    /// The `topic` header of a subscription or membership record.
    private static func topic(of record: some InputRecord) throws(MalformedRecord) -> String {
        guard let topic = record.header("topic") else {
            throw MalformedRecord(description: "repartition record at \(record.position) has no topic header")
        }
        return topic
    }
}
