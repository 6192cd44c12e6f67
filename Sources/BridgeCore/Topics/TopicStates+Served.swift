/// Partitions whose topics' members are served from their rows (``ServedMembers``).
extension TopicStates {
    /// Serves the members of `partition`'s topics from its rows, which hold every member held
    /// now, or will once batch `heldUntil` is written: until then the members stay held. A
    /// partition served already is left as it is.
    mutating func serveMembers(_ partition: Int32, heldUntil: UInt64?) {
        guard let held = partitions[partition], held.served == nil else { return }
        partitions[partition]?.served = ServedMembers(counts: held.members.mapValues(\.count), heldUntil: heldUntil)
        if heldUntil == nil { partitions[partition]?.members = [:] }
    }

    /// Serves the members of `partition`'s topics, none held, from rows that hold `counts` of
    /// them (a restart, whose changelog tail is read from the rows as it applies).
    mutating func serveMembers(_ partition: Int32, rowsHolding counts: [String: Int]) {
        guard partitions[partition]?.served == nil else { return }
        partitions[partition]?.served = ServedMembers(counts: counts, heldUntil: nil)
    }

    /// Notes in a partition served from its rows that `token` joins `topic` (`isMember`) or
    /// leaves it; returns whether the members are held in memory too, and change as well.
    mutating func noteServed(_ isMember: Bool, token: String, topic: String, in partition: Int32) -> Bool {
        let wasMember = self.isMember(token, of: topic, in: partition) ?? false
        guard var served = partitions[partition]?.served else { return true }
        partitions[partition]?.served = nil  // not shared while it changes
        served.note(token, of: topic, isMember: isMember, wasMember: wasMember, in: openBatch)
        partitions[partition]?.served = served
        return served.holdsMembers
    }

    /// What the rows of `partition`, served from them, must be read for before a batch that
    /// names `reads` is processed (``RecordProcessor/members(namedBy:topics:into:)``), for walks'
    /// chunks of `chunkMembers`: nil when nothing.
    public func membersToRead(
        _ reads: MemberReads, in partition: Int32, chunkMembers: Int = FanOutWalk.chunkMembers
    ) -> MemberRowsToRead? {
        guard let served = partitions[partition]?.served, !served.holdsMembers, !reads.isEmpty else { return nil }
        var toRead = MemberRowsToRead()
        for (topic, tokens) in reads.memberships.sorted(by: { $0.key < $1.key }) {
            var seen: Set<DeviceKey> = []
            for token in served.toRead(tokens, of: topic) where seen.insert(DeviceKey(token: token)).inserted {
                toRead.memberships.append((topic, token))
            }
        }
        for (topic, cursors) in reads.walks.sorted(by: { $0.key < $1.key }) {
            let rows = served.rowsToRead(of: topic, limit: chunkMembers, leaving: reads.leaves[topic] ?? 0)
            for cursor in cursors { toRead.walks.append((topic, cursor, rows)) }
        }
        return toRead.isEmpty ? nil : toRead
    }

    /// Holds what was read for `toRead` (``membersToRead(_:in:chunkMembers:)``) of `partition`'s
    /// rows, in its order: whether each token is a member, and each topic's members from each
    /// cursor.
    mutating func admit(
        _ toRead: MemberRowsToRead, areMembers: [Bool], walked: [(tokens: [String], toEnd: Bool)], in partition: Int32
    ) {
        guard var served = partitions[partition]?.served, !served.holdsMembers else { return }
        partitions[partition]?.served = nil
        for ((topic, token), isMember) in zip(toRead.memberships, areMembers) {
            served.admit(token, of: topic, isMember: isMember)
        }
        for (walk, read) in zip(toRead.walks, walked) {
            served.admit(ServedMembers.Read(tokens: read.tokens, toEnd: read.toEnd), of: walk.topic, from: walk.cursor)
        }
        partitions[partition]?.served = served
    }

    /// Notes that the rows hold every change of the batches up to `batch`.
    mutating func written(through batch: UInt64) {
        for partition in partitions.keys where partitions[partition]?.served != nil {
            partitions[partition]?.served?.written(through: batch)
        }
    }

    /// Ends the open batch, `batch`: in partitions served from their rows, what it read goes, and
    /// the members held in memory once the rows hold them all.
    mutating func seal(_ batch: UInt64) {
        for partition in partitions.keys where partitions[partition]?.served != nil {
            if partitions[partition]?.served?.seal() == true { partitions[partition]?.members = [:] }
        }
        openBatch = batch &+ 1
    }
}

/// What a batch's records name of one partition's topics' members, to read from its rows before
/// they are processed (``TopicStates/membersToRead(_:in:chunkMembers:)``).
public struct MemberReads: Sendable, Equatable {
    /// By topic, the tokens its hops join or leave.
    public var memberships: [String: [String]] = [:]
    /// By topic, how many of its hops' tokens leave it.
    public var leaves: [String: Int] = [:]
    /// By topic, the cursors its walks go on from.
    public var walks: [String: Set<TopicMembers.Cursor>] = [:]
    /// The topic of each walk the records named begin, for the steps that may follow them.
    var startedWalks: [FanOutWalk.Key: String] = [:]

    public init() {}

    /// Whether it names nothing.
    public var isEmpty: Bool { memberships.isEmpty && walks.isEmpty }
}

/// What to read of one partition's member rows before a batch
/// (``TopicStates/membersToRead(_:in:chunkMembers:)``).
public struct MemberRowsToRead: Sendable {
    /// Whether each token is a member of each topic.
    public var memberships: [(topic: String, token: String)] = []
    /// Up to `rows` members of each topic from each cursor on.
    public var walks: [(topic: String, cursor: TopicMembers.Cursor, rows: Int)] = []

    /// Whether it reads nothing.
    public var isEmpty: Bool { memberships.isEmpty && walks.isEmpty }
}
