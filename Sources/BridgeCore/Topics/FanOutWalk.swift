/// One topic's part of a topic or condition send, at the topic's owner: a walk over the topic's
/// members in bounded chunks, each sent on to the members' device owners.
///
/// A walk goes on in ``Step``s, each one input (see ``RecordProcessor``), each carrying where it
/// goes on and what its segment has sent so far: the step to take next is a record of its own,
/// written with the chunk's copies, so a step processed again (after a crash) walks the same
/// chunk again, under the same numbers, rather than skipping it. A large topic is walked in up
/// to ``maximumSegments`` segments of the bucket space at once, so that one fan-out is not one
/// chunk per round trip. The walk's own state changes only when a segment ends.
public struct FanOutWalk: Sendable, Hashable {
    /// A walk's name in its partition: the send, and the topic's place in the send's topics.
    public struct Key: Sendable, Hashable {
        /// The send's id (its `fanned_out`'s `message_id`).
        public var sendID: String
        /// The walked topic's place in the send's topics.
        public var topicIndex: Int

        public init(sendID: String, topicIndex: Int) {
            self.sendID = sendID
            self.topicIndex = topicIndex
        }
    }

    /// One chunk of one segment to walk, and what the segment sent before it.
    public struct Step: Sendable, Hashable {
        /// The segment walked.
        public var segment: Int
        /// The chunk's number in its segment, from 0.
        public var chunk: Int
        /// Where the chunk starts.
        public var cursor: TopicMembers.Cursor
        /// Per device partition: the last chunk of this segment sent to it.
        public var lastSent: [Int32: Int]

        public init(segment: Int, chunk: Int, cursor: TopicMembers.Cursor, lastSent: [Int32: Int]) {
            self.segment = segment
            self.chunk = chunk
            self.cursor = cursor
            self.lastSent = lastSent
        }
    }

    /// The send.
    public var message: FanOutMessage
    /// The walked topic's place in the send's topics.
    public var topicIndex: Int
    /// Per segment: nil while it is walked; once it ended, the last chunk it sent to each device
    /// partition.
    public private(set) var ended: [[Int32: Int]?]

    /// The most members a chunk takes.
    public static let chunkMembers = 1000
    /// The most token bytes a chunk takes (at least one member), where the output records allow
    /// as many: what bounds one record's size.
    public static let chunkBytes = 256 * 1024
    /// The most segments a walk has.
    public static let maximumSegments = 64
    /// The most channels (segments times device partitions) a walk has: its end lists the last
    /// chunk of each, in one record.
    public static let maximumChannels = 2048
    /// Room the walk's own records take beside the send's `apns` object and target: its state in
    /// the changelog, and a step's cursor (a token) and last chunks.
    public static let stateBytes = 32 * 1024

    /// A walk of `memberCount` members to `partitions` device partitions: one segment per chunk's
    /// worth, up to ``maximumSegments`` and ``maximumChannels``.
    public init(message: FanOutMessage, topicIndex: Int, memberCount: Int, partitions: Int) {
        let segments = min(
            memberCount / Self.chunkMembers + 1, Self.maximumSegments, Self.maximumChannels / max(partitions, 1))
        self.init(message: message, topicIndex: topicIndex, ended: Array(repeating: nil, count: max(segments, 1)))
    }

    /// A walk as recorded (restored from the changelog).
    public init(message: FanOutMessage, topicIndex: Int, ended: [[Int32: Int]?]) {
        self.message = message
        self.topicIndex = topicIndex
        self.ended = ended
    }

    /// The walk's name in its partition.
    public var key: Key { Key(sendID: message.sendID, topicIndex: topicIndex) }

    /// The first step of each segment.
    public var firstSteps: [Step] {
        ended.indices.map {
            Step(
                segment: $0, chunk: 0,
                cursor: TopicMembers.Cursor(bucket: UInt16(truncatingIfNeeded: start(of: $0)), after: nil),
                lastSent: [:])
        }
    }

    /// Whether every segment ended.
    public var isFinished: Bool { ended.allSatisfy { $0 != nil } }

    /// The last chunk sent on each (segment, device partition), once the walk is finished.
    public var lastChunks: [FanOutTally.Channel: Int] {
        var chunks: [FanOutTally.Channel: Int] = [:]
        for (segment, sent) in ended.enumerated() {
            for (partition, chunk) in sent ?? [:] {
                chunks[FanOutTally.Channel(segment: segment, partition: partition)] = chunk
            }
        }
        return chunks
    }

    /// Walks `step`'s chunk of `members`, of at most `maxBytes` of tokens (and ``chunkBytes``):
    /// its devices by device partition (`partition(of:)`), and the step after it, or nil when the
    /// segment ended (which the walk then records).
    public mutating func walk(
        _ step: Step, in members: TopicMembers?, maxBytes: Int, partition: (String) -> Int32
    ) -> (copies: [(partition: Int32, tokens: [String])], next: Step?) {
        guard ended.indices.contains(step.segment) else { return ([], nil) }
        let chunk =
            members?.chunk(
                from: step.cursor, before: start(of: step.segment + 1), limit: Self.chunkMembers,
                maxBytes: min(maxBytes, Self.chunkBytes)) ?? (members: [], next: nil)
        var byPartition: [Int32: [String]] = [:]
        for token in chunk.members { byPartition[partition(token), default: []].append(token) }
        var lastSent = step.lastSent
        for devicePartition in byPartition.keys { lastSent[devicePartition] = step.chunk }
        let copies = byPartition.sorted { $0.key < $1.key }.map { (partition: $0.key, tokens: $0.value) }
        guard let cursor = chunk.next, step.chunk < Int.max else {
            // A segment walked twice (a step processed again) ends with what either sent last.
            ended[step.segment] = (ended[step.segment] ?? [:]).merging(lastSent, uniquingKeysWith: max)
            return (copies, nil)
        }
        return (copies, Step(segment: step.segment, chunk: step.chunk + 1, cursor: cursor, lastSent: lastSent))
    }

    /// The first bucket of segment `segment` (the end of the bucket space for the one past the last).
    private func start(of segment: Int) -> Int {
        TopicMembers.bucketCount * min(max(segment, 0), ended.count) / max(ended.count, 1)
    }
}
