import Foundation

/// What librdkafka reports about a client every `statistics.interval.ms` (its statistics JSON,
/// see librdkafka's STATISTICS.md): only the figures an operator watches.
public struct KafkaStatistics: Sendable, Decodable {
    /// A broker connection.
    public struct Broker: Sendable, Decodable {
        /// `host:port/nodeid`.
        public var name: String
        /// The connection's state, e.g. `UP`.
        public var state: String
        /// Requests waiting to be sent.
        public var outbufCount: Int
        /// Requests sent, waiting for their response.
        public var waitingResponseCount: Int
        /// Round-trip times over the last interval, in microseconds.
        public var roundTrip: Window?

        enum CodingKeys: String, CodingKey {
            case name, state
            case outbufCount = "outbuf_cnt"
            case waitingResponseCount = "waitresp_cnt"
            case roundTrip = "rtt"
        }
    }

    /// A rolling window of values.
    public struct Window: Sendable, Decodable {
        /// The average.
        public var avg: Int64
        /// The 99th percentile.
        public var p99: Int64
    }

    /// A partition the client produces to or consumes from.
    public struct Partition: Sendable, Decodable {
        /// The partition number; -1 for librdkafka's internal unassigned partition.
        public var partition: Int32
        /// Records between the consumer's committed offset (or position) and the end; -1 when unknown.
        public var consumerLag: Int64?
        /// The offset after the last record handed to the application; -1 when none was.
        public var applicationOffset: Int64?
        /// The partition's high watermark; -1 when unknown.
        public var highWatermark: Int64?
        /// The partition's last stable offset, up to which a read_committed consumer reads; -1
        /// when unknown.
        public var lastStableOffset: Int64?

        /// Records between what the consumer has read and the partition's end (the last stable
        /// offset, else the high watermark); nil when either is unknown. Unlike ``consumerLag``
        /// it does not count from the committed offset, which a consumer whose offsets are
        /// committed through a producer's transaction never learns.
        public var readingLag: Int64? {
            guard let read = applicationOffset, read >= 0 else { return nil }
            guard let end = [lastStableOffset, highWatermark].lazy.compactMap({ $0 }).first(where: { $0 >= 0 }) else {
                return nil
            }
            return max(end - read, 0)
        }

        enum CodingKeys: String, CodingKey {
            case partition
            case consumerLag = "consumer_lag"
            case applicationOffset = "app_offset"
            case highWatermark = "hi_offset"
            case lastStableOffset = "ls_offset"
        }
    }

    /// A topic's partitions.
    public struct Topic: Sendable, Decodable {
        /// By partition number, as text.
        public var partitions: [String: Partition]
    }

    /// The client's name (`client.id` and a number).
    public var name: String
    /// `producer` or `consumer`.
    public var type: String
    /// Messages in the producer's queues.
    public var messageCount: Int
    /// Operations (callbacks, events) waiting in the client's reply queue.
    public var replyQueue: Int
    /// By broker name.
    public var brokers: [String: Broker]
    /// By topic name.
    public var topics: [String: Topic]

    enum CodingKeys: String, CodingKey {
        case name, type
        case messageCount = "msg_cnt"
        case replyQueue = "replyq"
        case brokers, topics
    }

    /// Decodes librdkafka's statistics JSON.
    public static func decode(_ json: UnsafeRawBufferPointer) throws -> KafkaStatistics {
        try JSONDecoder().decode(KafkaStatistics.self, from: Data(json))
    }
}
