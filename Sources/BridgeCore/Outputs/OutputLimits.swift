import BridgeConfig
import FCMTranslation

/// How large one output record may be, and what that leaves for the parts that come from input.
///
/// The producer refuses a larger record when it is handed over, and an output that never lands
/// must not be committed past: so every output is made to fit. Tokens and rejection details are
/// bounded where they are read, a message's inbox record is checked when it is made, dead
/// letters are cut, and ``problem(with:)`` refuses a configuration whose own limits cannot fit.
public struct OutputLimits: Sendable, Hashable {
    /// The largest record, key, value and headers together: the producer's `message.max.bytes`,
    /// or an output topic's `max.message.bytes` where that is lower.
    public var maxRecordBytes: Int

    /// Room kept in every record for what the bridge adds around input-sized parts: a key (a
    /// token), headers and their framing.
    static let envelopeBytes = RequestDecoder.maximumTokenBytes + 4096
    /// The smallest ``maxRecordBytes`` the bridge works with: room for a forwarded `ack` of
    /// 1,000 ids and for a dead letter's key, with headers.
    static let minimumRecordBytes = 65_536
    /// What a topic's `max.message.bytes` (which counts a whole record batch) spends on the
    /// batch's own framing.
    public static let batchOverheadBytes = 512
    /// Room for a message's APNs headers and the inbox record's own members, beyond the payload.
    static let inboxHeaderBytes = 8192
    /// The most bytes an id takes in `deleted_messages` (the id, quotes and a comma).
    static let listedIDBytes = MessageID.maximumBytes + 3

    /// The limits under librdkafka's default `message.max.bytes` (1,000,000).
    public static let librdkafkaDefault = OutputLimits(maxRecordBytes: 1_000_000)

    /// Limits for records of at most `maxRecordBytes`.
    public init(maxRecordBytes: Int) {
        self.maxRecordBytes = maxRecordBytes
    }

    /// The largest inbox record of one message: it travels with a token key and headers in the
    /// inbox, changelog and repartition topics.
    var maxInboxRecordBytes: Int { room(beside: 0) }

    /// What a record's value has room for beside `otherBytes` of it and the envelope (a key and
    /// headers): for a subscription's tokens beside its topic, or a fan-out's beside its message.
    func room(beside otherBytes: Int) -> Int { maxRecordBytes - Self.envelopeBytes - otherBytes }

    /// Why `configuration` cannot keep its outputs within these limits, naming the field; nil
    /// when it can.
    public func problem(with configuration: BridgeConfiguration) -> ConfigurationError? {
        let source =
            "output records may hold at most \(maxRecordBytes) bytes (the producer's message.max.bytes, "
            + "or an output topic's max.message.bytes where lower)"
        guard maxRecordBytes >= Self.minimumRecordBytes else {
            return ConfigurationError(
                field: "kafka.producer_properties.message.max.bytes",
                "\(source); the bridge needs at least \(Self.minimumRecordBytes)")
        }
        let payloadRoom = maxInboxRecordBytes - Self.inboxHeaderBytes
        guard configuration.payloadLimit <= payloadRoom else {
            return ConfigurationError(
                field: "apns.payload_limit",
                "\(configuration.payloadLimit) does not fit: \(source), which leaves \(payloadRoom) for a payload")
        }
        guard Int(configuration.topics.partitions) <= FanOutWalk.maximumChannels else {
            return ConfigurationError(
                field: "topics.partitions",
                "\(configuration.topics.partitions) is over \(FanOutWalk.maximumChannels): a fan-out's walk lists its last chunk to each state partition in one record"
            )
        }
        let notice = (configuration.queue.maxPending + 1) * Self.listedIDBytes + Self.envelopeBytes
        guard notice <= maxRecordBytes else {
            return ConfigurationError(
                field: "queue.max_pending",
                "\(configuration.queue.maxPending) does not fit: \(source), and a deleted_messages status listing that many ids takes up to \(notice)"
            )
        }
        return nil
    }
}
