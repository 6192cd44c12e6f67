import FCMTranslation

/// What the coordinator of one topic or condition send (the owner of its first topic) knows of
/// the fan-out, to publish one `fanned_out` with the exact count once every copy is accounted
/// for, whichever workers own the topics and devices.
///
/// Each topic's walk sends each chunk's devices to their owners, one record per (chunk, device
/// partition); when the walk ends, it says which chunk it sent last on each channel (a segment
/// and a device partition: ``walkEnd(topic:lastChunks:)``). Each device owner acknowledges
/// each record with the number of its devices that took a copy
/// (``acknowledgement(topic:channel:chunk:accepted:)``). Both return the change to apply and
/// record, or nil when nothing changes. A channel's records are read and
/// acknowledged in order, so an acknowledgement of a chunk at or before the channel's last is a
/// repeat (a record processed again after a crash) and changes nothing; and the channel is
/// complete when its last sent chunk is acknowledged. The fan-out is complete when every walk
/// ended and every channel is; the count is the devices that took a copy, each counted once
/// because a device takes a copy from one topic only.
public struct FanOutTally: Sendable, Hashable {
    /// A segment of a walk, and a device partition it sends to.
    public struct Channel: Sendable, Hashable {
        /// The walk's segment.
        public var segment: Int
        /// The device partition.
        public var partition: Int32

        public init(segment: Int, partition: Int32) {
            self.segment = segment
            self.partition = partition
        }
    }

    /// A channel of one of the send's topics.
    public struct TopicChannel: Sendable, Hashable {
        /// The topic's place in the send's topics.
        public var topic: Int
        /// The channel of its walk.
        public var channel: Channel

        public init(topic: Int, channel: Channel) {
            self.topic = topic
            self.channel = channel
        }
    }

    /// A channel's acknowledgements: the last chunk, and the copies taken over all of them.
    public struct Progress: Sendable, Hashable {
        /// The last chunk acknowledged.
        public var lastChunk: Int
        /// Devices that took a copy, over every chunk acknowledged.
        public var accepted: Int

        public init(lastChunk: Int, accepted: Int) {
            self.lastChunk = lastChunk
            self.accepted = accepted
        }
    }

    /// The send, for its `fanned_out`.
    public let message: FanOutStatusSubject
    /// Per topic of the send: the last chunk its walk sent on each channel, once it ended.
    public private(set) var expected: [[Channel: Int]?]
    /// Each channel's acknowledgements.
    public private(set) var progress: [TopicChannel: Progress] = [:]

    /// A fan-out of `message`, nothing accounted for yet.
    public init(message: FanOutStatusSubject) {
        self.message = message
        expected = Array(repeating: nil, count: max(message.target.condition.topics.count, 1))
    }

    /// Devices that took a copy, over the acknowledged records.
    public var count: Int {
        progress.values.reduce(0) { sum, progress in
            let (total, overflow) = sum.addingReportingOverflow(progress.accepted)
            return overflow ? .max : total
        }
    }

    /// Whether every walk ended and every channel's last chunk is acknowledged.
    public var isComplete: Bool {
        expected.enumerated().allSatisfy { topic, expected in
            guard let expected else { return false }
            return expected.allSatisfy { channel, last in
                (progress[TopicChannel(topic: topic, channel: channel)]?.lastChunk ?? -1) >= last
            }
        }
    }

    /// The change that records the end of topic `topic`'s walk, having sent `lastChunks` last
    /// on each channel; nil when that is no news (a repeat, or a topic out of range).
    public func walkEnd(topic: Int, lastChunks: [Channel: Int]) -> TopicChange? {
        guard expected.indices.contains(topic), expected[topic] == nil else { return nil }
        return .walkEnded(sendID: message.sendID, topicIndex: topic, lastChunks: lastChunks)
    }

    /// The change that records chunk `chunk` of `channel` of topic `topic` giving `accepted`
    /// devices a copy: the channel's progress; nil for a repeat (or a topic out of range).
    public func acknowledgement(topic: Int, channel: Channel, chunk: Int, accepted: Int) -> TopicChange? {
        guard expected.indices.contains(topic) else { return nil }
        let key = TopicChannel(topic: topic, channel: channel)
        let before = progress[key] ?? Progress(lastChunk: -1, accepted: 0)
        guard chunk > before.lastChunk else { return nil }
        let (sum, overflow) = before.accepted.addingReportingOverflow(max(accepted, 0))
        return .tallyProgress(sendID: message.sendID, key, Progress(lastChunk: chunk, accepted: overflow ? .max : sum))
    }

    /// Applies a change of this tally: a walk's end (its first) or a channel's progress. Other
    /// changes, and a walk end's tombstone, change nothing.
    public mutating func apply(_ change: TopicChange) {
        switch change {
        case .walkEnded(_, let topic, let lastChunks?):
            guard expected.indices.contains(topic), expected[topic] == nil else { return }
            expected[topic] = lastChunks
        case .tallyProgress(_, let channel, let recorded):
            progress[channel] = recorded
        case .walkEnded(_, _, nil), .member, .deviceTopic, .conditionCopies, .walk, .tally:
            break
        }
    }
}

/// What a `fanned_out` status says of its send besides the count: its id, target and time.
public struct FanOutStatusSubject: Sendable, Hashable {
    /// The send's own id.
    public var sendID: String
    /// Its topic or condition.
    public var target: TopicTarget
    /// Its event time.
    public var time: Int64

    public init(sendID: String, target: TopicTarget, time: Int64) {
        self.sendID = sendID
        self.target = target
        self.time = time
    }
}
