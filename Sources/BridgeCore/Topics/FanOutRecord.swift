import FCMTranslation
import NIOCore

/// A fan-out's records on the repartition topic, each keyed by the send's id and stamped with
/// the send's event time, each read where it is written:
///
/// - `fanout-walk` (to each topic's owner): walk the topic (header `topic-index`) for the send
///   (value: its `apns` object; headers `topic` or `condition`, `collapse-key`, `expires-at`,
///   `id-range`).
/// - `fanout-next` (to the topic's owner, from itself): walk the next chunk of segment `segment`.
/// - `fanout-copies` (to a device partition): give these devices a copy (value: the `apns`
///   object, `apns-bytes` long, then each token after a newline; the send's headers as above,
///   and `sequence`, the record's number among the walk's records to this partition).
/// - `fanout-ended` (to the coordinator, the first topic's owner): the walk sent this many
///   records to each device partition (value: a JSON array).
/// - `fanout-ack` (to the coordinator): `accepted` devices of record `sequence` to partition
///   `partition` took a copy.
enum FanOutRecord: Sendable, Hashable {
    case walk(FanOutMessage, topicIndex: Int)
    case next(sendID: String, topicIndex: Int, segment: Int)
    case copies(FanOutMessage, topicIndex: Int, sequence: Int, tokens: [String])
    case walkEnded(sendID: String, topicIndex: Int, records: [Int])
    case acknowledged(sendID: String, topicIndex: Int, partition: Int32, sequence: Int, accepted: Int)

    /// The `kind` headers of fan-out records.
    static let kinds: Set<String> = ["fanout-walk", "fanout-next", "fanout-copies", "fanout-ended", "fanout-ack"]
}

extension RepartitionCodec {
    /// Writes `fanOut` to state partition `partition`.
    func record(_ fanOut: FanOutRecord, partition: Int32, to outputs: inout OutputRecords) {
        switch fanOut {
        case .walk(let message, let index):
            begin(message.sendID, index, time: message.time, kind: "fanout-walk", partition: partition, to: &outputs)
            outputs.value { $0.append(message.apns) }
            Self.writeHeaders(of: message, to: &outputs)
        case .next(let sendID, let index, let segment):
            // The walk's record holds the send; this only says to go on.
            begin(sendID, index, time: nil, kind: "fanout-next", partition: partition, to: &outputs)
            outputs.value { _ in }
            outputs.header("segment", integer: Int64(segment))
        case .copies(let message, let index, let sequence, let tokens):
            begin(message.sendID, index, time: message.time, kind: "fanout-copies", partition: partition, to: &outputs)
            outputs.value { value in
                value.append(message.apns)
                for token in tokens {
                    value.append(UInt8(ascii: "\n"))
                    value.append(utf8: token)
                }
            }
            Self.writeHeaders(of: message, to: &outputs)
            outputs.header("apns-bytes", integer: Int64(message.apns.count))
            outputs.header("sequence", integer: Int64(sequence))
        case .walkEnded(let sendID, let index, let records):
            begin(sendID, index, time: nil, kind: "fanout-ended", partition: partition, to: &outputs)
            outputs.value { JSONValue.array(records.map(JSONValue.integer)).write(to: &$0) }
        case .acknowledged(let sendID, let index, let devicePartition, let sequence, let accepted):
            begin(sendID, index, time: nil, kind: "fanout-ack", partition: partition, to: &outputs)
            outputs.value { _ in }
            outputs.header("partition", integer: Int64(devicePartition))
            outputs.header("sequence", integer: Int64(sequence))
            outputs.header("accepted", integer: Int64(accepted))
        }
    }

    private func begin(
        _ sendID: String, _ topicIndex: Int, time: Int64?, kind: StaticString, partition: Int32,
        to outputs: inout OutputRecords
    ) {
        outputs.begin(.repartition, partition: partition, timestamp: time)
        outputs.key { $0.append(utf8: sendID) }
        outputs.header("kind") { $0.append(kind) }
        outputs.header("topic-index", integer: Int64(topicIndex))
    }

    private static func writeHeaders(of message: FanOutMessage, to outputs: inout OutputRecords) {
        switch message.target.kind {
        case .topic: outputs.header("topic", text: message.target.text)
        case .condition: outputs.header("condition", text: message.target.text)
        }
        if let key = message.collapseKey { outputs.header("collapse-key", text: key) }
        if let expiresAt = message.expiresAt { outputs.header("expires-at", integer: expiresAt) }
        if let range = message.idRange { outputs.header("id-range", text: "\(range.lowerBound)-\(range.upperBound)") }
    }

    /// The fan-out record `record` is, of kind `kind` (one of ``FanOutRecord/kinds``).
    func fanOut(_ record: some InputRecord, kind: String) throws(MalformedRecord) -> FanOutRecord {
        guard let sendID = RecordFields.text(record.key), let index = Self.count(record, "topic-index") else {
            throw MalformedRecord(description: "fan-out record at \(record.position) has no send id or topic index")
        }
        switch kind {
        case "fanout-walk":
            let apns = RecordFields.bytes(record.value) ?? []
            return .walk(try Self.message(sendID, of: record, apns: apns), topicIndex: index)
        case "fanout-next":
            guard let segment = Self.count(record, "segment") else {
                throw MalformedRecord(description: "fan-out record at \(record.position) has no segment")
            }
            return .next(sendID: sendID, topicIndex: index, segment: segment)
        case "fanout-copies":
            let value = RecordFields.bytes(record.value) ?? []
            guard let sequence = Self.count(record, "sequence"), let apnsBytes = Self.count(record, "apns-bytes"),
                apnsBytes <= value.count
            else {
                throw MalformedRecord(
                    description: "fan-out copies at \(record.position) have no sequence or apns-bytes")
            }
            // Tokens read back are checked as a request's are: they become keys and JSON.
            let tokens = value[apnsBytes...].split(separator: UInt8(ascii: "\n")).map {
                String(decoding: $0, as: UTF8.self)
            }.filter { RequestDecoder.tokenProblem($0) == nil }
            let message = try Self.message(sendID, of: record, apns: Array(value[..<apnsBytes]))
            return .copies(message, topicIndex: index, sequence: sequence, tokens: tokens)
        case "fanout-ended":
            guard let bytes = RecordFields.bytes(record.value), case .array(let values)? = try? JSONParser.parse(bytes)
            else {
                throw MalformedRecord(description: "fan-out end at \(record.position) has no JSON array of counts")
            }
            return .walkEnded(sendID: sendID, topicIndex: index, records: values.map { FanOutJSON.count($0) ?? 0 })
        case "fanout-ack":
            guard let partition = Self.count(record, "partition").flatMap(Int32.init(exactly:)),
                let sequence = Self.count(record, "sequence"), let accepted = Self.count(record, "accepted")
            else {
                throw MalformedRecord(description: "fan-out ack at \(record.position) lacks a header")
            }
            return .acknowledged(
                sendID: sendID, topicIndex: index, partition: partition, sequence: sequence, accepted: accepted)
        default:
            throw MalformedRecord(description: "repartition record at \(record.position) is of unknown kind \(kind)")
        }
    }

    /// A header holding a count: a non-negative integer.
    private static func count(_ record: some InputRecord, _ name: String) -> Int? {
        record.integerHeader(name).flatMap { $0 >= 0 ? Int(exactly: $0) : nil }
    }

    private static func message(_ sendID: String, of record: some InputRecord, apns: [UInt8]) throws(MalformedRecord)
        -> FanOutMessage
    {
        let parsed: Result<TopicTarget, TopicTargetError>
        if let topic = record.header("topic") {
            parsed = TopicTarget.parse(topic, as: .topic)
        } else if let condition = record.header("condition") {
            parsed = TopicTarget.parse(condition, as: .condition)
        } else {
            throw MalformedRecord(description: "fan-out record at \(record.position) has no topic or condition")
        }
        guard case .success(let target) = parsed, let time = record.createTime else {
            throw MalformedRecord(description: "fan-out record at \(record.position) has a bad target or no timestamp")
        }
        return FanOutMessage(
            sendID: sendID, target: target, collapseKey: record.header("collapse-key"),
            expiresAt: record.integerHeader("expires-at"), time: time, apns: apns,
            idRange: record.header("id-range").flatMap(FanOutJSON.range))
    }
}
