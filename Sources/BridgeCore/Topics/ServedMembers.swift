/// What a state partition served from its rows knows of its topics' members, which the rows hold
/// (``TopicStates/serveMembers(_:heldUntil:)``): how many each topic has, the joins and leaves
/// of batches the rows do not hold yet, and what the open batch read of the rows. Batches are
/// numbered by ``DeviceStates/seal()``.
///
/// Before a batch is processed its caller reads from the rows what it names
/// (``TopicStates/membersToRead(_:in:chunkMembers:)``): whether each member a topic's hop joins
/// or leaves is one, and each walk's chunk from its cursor, enough rows that the leaves not
/// written yet and those the batch may make cannot shorten the chunk; processing then lays the
/// joins and leaves not written over what was read. Until the rows hold every member the
/// partition held when it began to be served, the members stay held in memory too, and answer
/// instead. A seal lets go of what the open batch read: records read for before it are read for
/// again after it.
struct ServedMembers: Sendable, Equatable {
    /// A join or leave the rows do not hold yet.
    struct Unwritten: Sendable, Equatable {
        var isMember: Bool
        var batch: UInt64
        /// The member's bucket (``TopicMembers/bucket(of:)``).
        var bucket: UInt16
    }

    /// A topic's members read from a cursor on.
    struct Read: Sendable, Equatable {
        var tokens: [String]
        /// Whether they are all the rows held from the cursor.
        var toEnd: Bool
    }

    /// Members by topic (none: not there).
    private(set) var counts: [String: Int] = [:]
    /// The batch whose write leaves the rows holding every member held when the partition began
    /// to be served; nil once they do. Until then the members stay held in memory.
    private(set) var heldUntil: UInt64?
    /// The last batch the rows hold, noted until the open batch ends: what the open batch read
    /// may be from before it, so the joins and leaves it holds are let go at the seal.
    private var writtenThrough: UInt64?
    /// Joins and leaves of batches the rows do not hold yet, by topic: the last of each member.
    private var unwritten: [String: [DeviceKey: Unwritten]] = [:]
    /// Whether each token read in the open batch is a member, by topic.
    private var read: [String: [DeviceKey: Bool]] = [:]
    /// The members read in the open batch, by topic and cursor.
    private var chunks: [String: [TopicMembers.Cursor: Read]] = [:]

    /// A partition whose members are `counts`, held in memory until the rows hold batch
    /// `heldUntil` (nil: they hold every member already).
    init(counts: [String: Int], heldUntil: UInt64?) {
        self.counts = counts.filter { $0.value > 0 }
        self.heldUntil = heldUntil
    }

    /// Whether the members are held in memory still.
    var holdsMembers: Bool { heldUntil != nil }

    /// Members of every topic.
    var membershipCount: Int { counts.values.reduce(0, +) }

    /// Whether `token` is a member of `topic`, by the joins and leaves not written and the open
    /// batch's reads; nil when neither knows (the caller did not read it).
    func isMember(_ token: String, of topic: String) -> Bool? {
        let key = DeviceKey(token: token)
        return unwritten[topic]?[key]?.isMember ?? read[topic]?[key]
    }

    /// Notes that `token` joins `topic` (`isMember`) or leaves it in `batch`, the open one, and
    /// was a member before when `wasMember`.
    mutating func note(_ token: String, of topic: String, isMember: Bool, wasMember: Bool, in batch: UInt64) {
        unwritten[topic, default: [:]][DeviceKey(token: token)] = Unwritten(
            isMember: isMember, batch: batch, bucket: TopicMembers.bucket(of: token))
        guard isMember != wasMember else { return }
        counts[topic, default: 0] += isMember ? 1 : -1
        if counts[topic] == 0 { counts[topic] = nil }
    }

    /// Of `tokens`, those whose membership of `topic` must be read from the rows.
    func toRead(_ tokens: [String], of topic: String) -> [String] {
        tokens.filter { isMember($0, of: topic) == nil }
    }

    /// The rows to read of `topic` from a cursor for a chunk of at most `limit` members, when
    /// up to `leaving` members may leave the topic before it is taken: enough that the chunk and
    /// the member after it are among them, whatever left (joins only add to them).
    func rowsToRead(of topic: String, limit: Int, leaving: Int) -> Int {
        let leaves = unwritten[topic]?.values.count { !$0.isMember } ?? 0
        let (rows, overflow) = limit.addingReportingOverflow(1 + leaves)
        return overflow ? .max : rows.addingReportingOverflow(leaving).overflow ? .max : rows + leaving
    }

    /// Holds what the open batch read: whether `token` is a member of `topic`.
    mutating func admit(_ token: String, of topic: String, isMember: Bool) {
        read[topic, default: [:]][DeviceKey(token: token)] = isMember
    }

    /// Holds what the open batch read: `topic`'s members from `cursor` on.
    mutating func admit(_ members: Read, of topic: String, from cursor: TopicMembers.Cursor) {
        chunks[topic, default: [:]][cursor] = members
    }

    /// `topic`'s members from `cursor` on as far as the open batch read them, with the joins
    /// and leaves not written laid over them (those of the buckets read): as many as a chunk from
    /// `cursor` takes, and the member after; nil when the batch did not read from `cursor`.
    func members(of topic: String, from cursor: TopicMembers.Cursor) -> TopicMembers? {
        guard let read = chunks[topic]?[cursor] else { return nil }
        var members = TopicMembers()
        for token in read.tokens { members.insert(token) }
        let last = read.toEnd ? nil : read.tokens.last.map(TopicMembers.bucket(of:))
        for (key, change) in unwritten[topic] ?? [:] where change.bucket >= cursor.bucket {
            if let last, change.bucket > last { continue }
            if change.isMember { members.insert(key.token) } else { members.remove(key.token) }
        }
        return members
    }

    /// Notes that the rows hold every change of the batches up to `batch`.
    mutating func written(through batch: UInt64) { writtenThrough = max(writtenThrough ?? batch, batch) }

    /// Ends the open batch: what it read goes, and so do the joins and leaves the rows hold;
    /// returns whether the members held in memory may go too (the rows hold them all).
    mutating func seal() -> Bool {
        read.removeAll(keepingCapacity: true)
        chunks.removeAll(keepingCapacity: true)
        guard let written = writtenThrough else { return false }
        writtenThrough = nil
        for topic in unwritten.keys {
            unwritten[topic] = unwritten[topic]?.filter { $0.value.batch > written }
            if unwritten[topic]?.isEmpty == true { unwritten[topic] = nil }
        }
        guard let heldUntil, heldUntil <= written else { return false }
        self.heldUntil = nil
        return true
    }

    /// Goes on after the partition was set aside: the rows hold every change, and a new batch is
    /// open; returns whether the members held in memory may go.
    mutating func resume() -> Bool {
        unwritten.removeAll()
        writtenThrough = nil
        read.removeAll()
        chunks.removeAll()
        defer { heldUntil = nil }
        return heldUntil != nil
    }
}
