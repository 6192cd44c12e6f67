import FCMTranslation
import NIOCore

/// A fan-out's records on the repartition topic, each keyed by the send's id and stamped with
/// the send's event time, each read where it is written:
///
/// - `fanout-walk` (to each topic's owner): walk the topic (header `topic-index`) for the send
///   (value: its `apns` object; headers `topic` or `condition`, `collapse-key`, `expires-at`,
///   `id-range`).
/// - `fanout-step` (to the topic's owner, from itself): walk a chunk (value: the
///   ``FanOutWalk/Step`` as JSON).
/// - `fanout-copies` (to a device partition): give these devices a copy (value: the `apns`
///   object, `apns-bytes` long, then each token after a newline; the send's headers as above,
///   and the chunk's `segment` and `chunk`).
/// - `fanout-ended` (to the coordinator, the first topic's owner): the walk's last chunk on
///   each channel (value: a JSON array of `[segment, partition, chunk]`).
/// - `fanout-ack` (to the coordinator): `accepted` devices of chunk `chunk` of segment `segment`
///   to partition `partition` took a copy.
enum FanOutRecord: Sendable, Hashable {
    case walk(FanOutMessage, topicIndex: Int)
    case step(sendID: String, topicIndex: Int, FanOutWalk.Step)
    case copies(FanOutMessage, topicIndex: Int, segment: Int, chunk: Int, tokens: [String])
    case walkEnded(sendID: String, topicIndex: Int, lastChunks: [FanOutTally.Channel: Int])
    case acknowledged(sendID: String, topicIndex: Int, FanOutTally.Channel, chunk: Int, accepted: Int)

    /// The `kind` headers of fan-out records.
    static let kinds: Set<String> = ["fanout-walk", "fanout-step", "fanout-copies", "fanout-ended", "fanout-ack"]
}

extension RepartitionCodec {
    /// Writes `fanOut` to state partition `partition`.
    func record(_ fanOut: FanOutRecord, partition: Int32, to outputs: inout OutputRecords) {
        switch fanOut {
        case .walk(let message, let index):
            begin(message.sendID, index, time: message.time, kind: "fanout-walk", partition: partition, to: &outputs)
            outputs.value { $0.append(message.apns) }
            Self.writeHeaders(of: message, to: &outputs)
        case .step(let sendID, let index, let step):
            // The walk's changelog record holds the send; this says where to go on.
            begin(sendID, index, time: nil, kind: "fanout-step", partition: partition, to: &outputs)
            outputs.value { FanOutJSON.write(step, to: &$0) }
        case .copies(let message, let index, let segment, let chunk, let tokens):
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
            outputs.header("segment", integer: Int64(segment))
            outputs.header("chunk", integer: Int64(chunk))
        case .walkEnded(let sendID, let index, let lastChunks):
            begin(sendID, index, time: nil, kind: "fanout-ended", partition: partition, to: &outputs)
            outputs.value { FanOutJSON.write(lastChunks, to: &$0) }
        case .acknowledged(let sendID, let index, let channel, let chunk, let accepted):
            begin(sendID, index, time: nil, kind: "fanout-ack", partition: partition, to: &outputs)
            outputs.value { _ in }
            outputs.header("segment", integer: Int64(channel.segment))
            outputs.header("partition", integer: Int64(channel.partition))
            outputs.header("chunk", integer: Int64(chunk))
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
        if let range = message.idRange { outputs.header("id-range", text: FanOutJSON.text(of: range)) }
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
        case "fanout-step":
            guard let step = RecordFields.bytes(record.value).flatMap(FanOutJSON.step) else {
                throw MalformedRecord(description: "fan-out step at \(record.position) is not readable")
            }
            return .step(sendID: sendID, topicIndex: index, step)
        case "fanout-copies":
            let value = RecordFields.bytes(record.value) ?? []
            guard let segment = Self.count(record, "segment"), let chunk = Self.count(record, "chunk"),
                let apnsBytes = Self.count(record, "apns-bytes"), apnsBytes <= value.count
            else {
                throw MalformedRecord(description: "fan-out copies at \(record.position) lack a header")
            }
            // Tokens read back are checked as a request's are: they become keys and JSON.
            let tokens = value[apnsBytes...].split(separator: UInt8(ascii: "\n")).map {
                String(decoding: $0, as: UTF8.self)
            }.prefix(FanOutWalk.chunkMembers).filter { RequestDecoder.tokenProblem($0) == nil }
            let message = try Self.message(sendID, of: record, apns: Array(value[..<apnsBytes]))
            return .copies(message, topicIndex: index, segment: segment, chunk: chunk, tokens: tokens)
        case "fanout-ended":
            guard let lastChunks = RecordFields.bytes(record.value).flatMap(FanOutJSON.lastChunks) else {
                throw MalformedRecord(description: "fan-out end at \(record.position) is not readable")
            }
            return .walkEnded(sendID: sendID, topicIndex: index, lastChunks: lastChunks)
        case "fanout-ack":
            guard let segment = Self.count(record, "segment"),
                let partition = Self.count(record, "partition").flatMap(Int32.init(exactly:)),
                let chunk = Self.count(record, "chunk"), let accepted = Self.count(record, "accepted")
            else {
                throw MalformedRecord(description: "fan-out ack at \(record.position) lacks a header")
            }
            return .acknowledged(
                sendID: sendID, topicIndex: index, FanOutTally.Channel(segment: segment, partition: partition),
                chunk: chunk, accepted: accepted)
        default:
            throw MalformedRecord(description: "repartition record at \(record.position) is of unknown kind \(kind)")
        }
    }

    /// A header holding a count: a non-negative integer.
    private static func count(_ record: some InputRecord, _ name: String) -> Int? {
        record.integerHeader(name).flatMap(FanOutJSON.count)
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
