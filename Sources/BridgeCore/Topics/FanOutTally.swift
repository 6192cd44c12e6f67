import FCMTranslation

/// What the coordinator of one topic or condition send (the owner of its first topic) knows of
/// the fan-out, to publish one `fanned_out` with the exact count once every copy is accounted
/// for, whichever workers own the topics and devices.
///
/// Each topic's owner walks its members and sends them to their devices' owners in records,
/// numbered per device partition from 0; when its walk ends, it says how many records it sent to
/// each (``walkEnded(topic:records:)``). Each device owner acknowledges each record with the
/// number of its devices that took a copy (``acknowledged(topic:partition:sequence:accepted:)``).
/// The fan-out is complete when every topic's walk has ended and every record it sent is
/// acknowledged; the count is the devices that took a copy, each counted once because a device
/// takes a copy from one topic only.
///
/// A topic's records to one device partition are read and acknowledged in order, so an
/// acknowledgement of a record before the next expected is a repeat (a record processed again
/// after a crash) and changes nothing. The state is a few integers per (topic, device
/// partition), whatever the topic's size.
public struct FanOutTally: Sendable, Hashable {
    /// The send, for its `fanned_out`.
    public var message: FanOutStatusSubject
    /// Per topic of the send: records its walk sent to each device partition, once it ended.
    public private(set) var sent: [[Int]?]
    /// Per topic, per device partition: records acknowledged (the next sequence expected).
    public private(set) var acknowledged: [[Int]]
    /// Devices that took a copy, over the acknowledged records.
    public private(set) var count: Int

    /// A fan-out of `message` over `partitions` device partitions, nothing accounted for yet.
    public init(message: FanOutStatusSubject, partitions: Int) {
        let topics = max(message.target.condition.topics.count, 1)
        self.init(
            message: message, sent: Array(repeating: nil, count: topics),
            acknowledged: Array(repeating: Array(repeating: 0, count: max(partitions, 0)), count: topics), count: 0)
    }

    /// A tally as recorded (restored from the changelog).
    public init(message: FanOutStatusSubject, sent: [[Int]?], acknowledged: [[Int]], count: Int) {
        self.message = message
        self.sent = sent
        self.acknowledged = acknowledged
        self.count = count
    }

    /// Whether every topic's walk ended and every record it sent is acknowledged.
    public var isComplete: Bool {
        sent.indices.allSatisfy { topic in
            guard let records = sent[topic], acknowledged.indices.contains(topic) else { return false }
            return zip(records, acknowledged[topic]).allSatisfy { $1 >= $0 }
        }
    }

    /// The walk of topic `topic` ended, having sent `records[p]` records to device partition
    /// `p`. Anything but the first report of a topic in range changes nothing.
    public mutating func walkEnded(topic: Int, records: [Int]) {
        guard sent.indices.contains(topic), sent[topic] == nil, acknowledged.indices.contains(topic),
            records.count == acknowledged[topic].count
        else { return }
        sent[topic] = records.map { max($0, 0) }
    }

    /// Record `sequence` of topic `topic`'s walk to device partition `partition` gave `accepted`
    /// devices a copy. A repeat changes nothing; a sequence past the next expected (only when
    /// acknowledgements were lost, as at-least-once delivery may) is taken as it comes.
    public mutating func acknowledged(topic: Int, partition: Int32, sequence: Int, accepted: Int) {
        let partition = Int(partition)
        guard acknowledged.indices.contains(topic), acknowledged[topic].indices.contains(partition),
            sequence >= acknowledged[topic][partition], sequence < Int.max
        else { return }
        acknowledged[topic][partition] = sequence + 1
        let (sum, overflow) = count.addingReportingOverflow(max(accepted, 0))
        count = overflow ? .max : sum
    }
}

/// What a `fanned_out` status says of its send besides the count: its id, target and time.
public struct FanOutStatusSubject: Sendable, Hashable {
    public var sendID: String
    public var target: TopicTarget
    public var time: Int64

    public init(sendID: String, target: TopicTarget, time: Int64) {
        self.sendID = sendID
        self.target = target
        self.time = time
    }
}
