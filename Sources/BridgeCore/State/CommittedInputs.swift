/// The group's committed offsets of the inputs that feed the state partitions being restored,
/// and the rule a restore keeps changelog records by: a record stays only when the committed
/// offset of its input (``ChangelogInput``) is past the input's offset. The others belong to a
/// transaction that did not commit (a broker that shows aborted records to read_committed
/// readers) or, at least once, to work that is done again from the committed offset: replayed,
/// they would put state ahead of the inputs the group has taken in.
public struct CommittedInputs: Sendable {
    /// An input partition.
    public struct Input: Sendable, Hashable, CustomStringConvertible {
        /// The topic, by its role.
        public var topic: ChangelogInput.Topic
        /// The partition.
        public var partition: Int32

        /// The partition `partition` of `topic`.
        public init(_ topic: ChangelogInput.Topic, partition: Int32) {
            self.topic = topic
            self.partition = partition
        }

        /// `<topic letter>[<partition>]`.
        public var description: String { "\(topic)[\(partition)]" }
    }

    /// What a restore does with a changelog record.
    public enum Verdict: Sendable, Hashable {
        /// Its input is committed: replay it.
        case committed
        /// Its input, at `offset`, is not committed: drop it.
        case uncommitted(Input, offset: Int64)
        /// It names no input (written before records did): replay it, as the worker that wrote
        /// it would have.
        case unattributed
        /// It names an input whose committed offset is unknown: none was read for it (the topics'
        /// layout changed since it was written), or the group has none (a new group's first
        /// transaction, or offsets that expired while the fleet was down). Replay it, as the
        /// worker that wrote it would have, and say so: dropping it would wipe what a group
        /// whose offsets expired still holds.
        case unknownInput(Input)
        /// Its `input` header is not of the form ``ChangelogInput`` writes: drop it, as any
        /// unreadable record.
        case malformed
    }

    /// The inputs with their committed offsets.
    private let committed: [Input: Int64]

    /// The rule for `committed`: each input partition with its committed offset (the next
    /// offset to read; negative where the group has committed none).
    public init(_ committed: [Input: Int64]) {
        self.committed = committed.filter { $0.value >= 0 }
    }

    /// What to do with a changelog record whose `input` header is `header` (nil: it has none).
    public func verdict(header: UnsafeRawBufferPointer?) -> Verdict {
        guard let header else { return .unattributed }
        guard let named = ChangelogInput.parse(header) else { return .malformed }
        let input = Input(named.topic, partition: named.partition)
        guard let committed = committed[input] else { return .unknownInput(input) }
        return named.offset < committed ? .committed : .uncommitted(input, offset: named.offset)
    }
}
