/// One topic's part of a topic or condition send, at the topic's owner: a walk over the topic's
/// members in bounded chunks, each sent on to the members' device owners, with its progress
/// recorded after each, so that a worker that stops mid-walk resumes where it stopped.
///
/// A large topic is walked in up to ``maximumSegments`` segments of the bucket space at once, each
/// going on by its own input (see ``RecordProcessor``), so that one fan-out is not one chunk per
/// round trip; the segments share the numbering of records per device partition that the
/// coordinator's ``FanOutTally`` counts.
public struct FanOutWalk: Sendable, Hashable {
    /// A walk's name in its partition: the send, and the topic's place in the send's topics.
    public struct Key: Sendable, Hashable {
        public var sendID: String
        public var topicIndex: Int

        public init(sendID: String, topicIndex: Int) {
            self.sendID = sendID
            self.topicIndex = topicIndex
        }
    }

    /// The send.
    public var message: FanOutMessage
    /// The walked topic's place in the send's topics.
    public var topicIndex: Int
    /// Per segment: where its walk goes on; nil once it ended.
    public private(set) var cursors: [TopicMembers.Cursor?]
    /// Per device partition: records sent to it so far, which numbers the next.
    public private(set) var sequences: [Int]

    /// The most members a chunk takes.
    public static let chunkMembers = 1000
    /// The most token bytes a chunk takes (at least one member): what bounds one record's size.
    public static let chunkBytes = 256 * 1024
    /// The most segments a walk has.
    public static let maximumSegments = 16

    /// A walk of `memberCount` members, to `partitions` device partitions: one segment per
    /// chunk's worth of members, up to ``maximumSegments``.
    public init(message: FanOutMessage, topicIndex: Int, memberCount: Int, partitions: Int) {
        let chunks = memberCount / Self.chunkMembers + 1
        let segments = min(max(chunks, 1), Self.maximumSegments)
        self.init(
            message: message, topicIndex: topicIndex,
            cursors: (0..<segments).map {
                TopicMembers.Cursor(bucket: UInt16(truncatingIfNeeded: Self.start(of: $0, in: segments)), after: nil)
            },
            sequences: Array(repeating: 0, count: max(partitions, 0)))
    }

    /// A walk as recorded (restored from the changelog).
    public init(message: FanOutMessage, topicIndex: Int, cursors: [TopicMembers.Cursor?], sequences: [Int]) {
        self.message = message
        self.topicIndex = topicIndex
        self.cursors = cursors
        self.sequences = sequences
    }

    public var key: Key { Key(sendID: message.sendID, topicIndex: topicIndex) }

    /// Whether every segment's walk ended.
    public var isFinished: Bool { cursors.allSatisfy { $0 == nil } }

    /// The next chunk of `segment` (nothing when it ended or is no segment), advancing its cursor.
    public mutating func nextChunk(of segment: Int, in members: TopicMembers?) -> [String] {
        guard cursors.indices.contains(segment), let cursor = cursors[segment] else { return [] }
        guard let members else {
            cursors[segment] = nil
            return []
        }
        let chunk = members.chunk(
            from: cursor, before: Self.start(of: segment + 1, in: cursors.count), limit: Self.chunkMembers,
            maxBytes: Self.chunkBytes)
        cursors[segment] = chunk.next
        return chunk.members
    }

    /// Numbers a record to device partition `partition`: its sequence (nil for no partition).
    public mutating func nextSequence(to partition: Int32) -> Int? {
        let partition = Int(partition)
        guard sequences.indices.contains(partition) else { return nil }
        let sequence = sequences[partition]
        sequences[partition] = sequence == .max ? sequence : sequence + 1
        return sequence
    }

    /// The first bucket of segment `segment` of `segments`.
    private static func start(of segment: Int, in segments: Int) -> Int {
        TopicMembers.bucketCount * segment / max(segments, 1)
    }
}
