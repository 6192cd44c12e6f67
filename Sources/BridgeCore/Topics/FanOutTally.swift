/// What the coordinator of one topic or condition send (the owner of its first topic) knows of
/// the fan-out, to publish one `fanned_out` with the exact count once every copy is accounted
/// for, whichever workers own the topics and devices.
///
/// Each topic's owner walks its members in chunks and sends each chunk's devices to their owners
/// in records, one per (chunk, device partition); when its walk ends, it tells the coordinator how
/// many records it sent (``jobFinished(topic:records:)``). Each device owner acknowledges each
/// record with the number of devices that took a copy (``acknowledged(_:accepted:)``). The
/// fan-out is complete when every topic's walk has ended and every record it sent is
/// acknowledged: the count is the devices that took a copy, each counted once because a device
/// takes a copy from one topic only. Messages arrive in any order and may repeat (a record
/// processed again after a crash, at least once): repeats change nothing, and
/// ``Outcome/complete(count:)`` is returned once.
public struct FanOutTally: Sendable, Hashable {
    /// One record of devices sent by a topic's walk.
    public struct Chunk: Sendable, Hashable {
        /// The topic's place in the send's topics.
        public var topic: Int
        /// The chunk's place in the topic's walk.
        public var sequence: Int
        /// The device partition the record went to.
        public var partition: Int32

        public init(topic: Int, sequence: Int, partition: Int32) {
            self.topic = topic
            self.sequence = sequence
            self.partition = partition
        }
    }

    /// What a message to the coordinator leaves it with.
    public enum Outcome: Sendable, Hashable {
        /// Copies are still unaccounted for.
        case pending
        /// Every copy is accounted for: publish `fanned_out` with `count`.
        case complete(count: Int)
        /// Completed before: nothing to publish.
        case done
    }

    /// Records each topic's walk sent, once it ended; nil while it runs.
    private var sent: [Int?]
    private var acknowledged: Set<Chunk> = []
    /// Devices that took a copy, over the acknowledged records.
    public private(set) var count = 0
    private var isComplete = false

    /// A fan-out over `topics` topics (1 to 5).
    public init(topics: Int) {
        sent = Array(repeating: nil, count: max(topics, 1))
    }

    /// The walk of topic `topic` ended, having sent `records` records.
    public mutating func jobFinished(topic: Int, records: Int) -> Outcome {
        guard sent.indices.contains(topic), sent[topic] == nil else { return settle() }
        sent[topic] = max(records, 0)
        return settle()
    }

    /// A device owner took `accepted` copies from the devices of `chunk`.
    public mutating func acknowledged(_ chunk: Chunk, accepted: Int) -> Outcome {
        if acknowledged.insert(chunk).inserted { count += max(accepted, 0) }
        return settle()
    }

    private mutating func settle() -> Outcome {
        if isComplete { return .done }
        var expected = 0
        for records in sent {
            guard let records else { return .pending }
            expected += records
        }
        guard acknowledged.count >= expected else { return .pending }
        isComplete = true
        return .complete(count: count)
    }
}
