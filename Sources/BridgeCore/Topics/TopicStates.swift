/// The topic state of the state partitions this worker holds: the members of each topic whose
/// partition it is (murmur2 of the topic's name), and the topics of each device whose partition
/// it is. Two views of one fact, each where it is needed: a fan-out reads a topic's members, a
/// condition a device's own topics.
///
/// A device's own topics are ids of the worker's ``TopicNames``, sorted, so that a topic in a
/// device's set costs a few bytes, not a copy of its name.
public struct TopicStates: Sendable, Equatable {
    struct Partition: Sendable, Equatable {
        /// Each topic's members; none of a partition served from its rows once the rows hold
        /// them all (``served``).
        var members: [String: TopicMembers] = [:]
        /// What a partition served from its rows knows of its topics' members.
        var served: ServedMembers?
        var deviceTopics: [DeviceKey: [UInt32]] = [:]
        /// Fan-outs walking this partition's topics.
        var walks: [FanOutWalk.Key: FanOutWalk] = [:]
        /// Fan-outs this partition coordinates (whose first topic is here).
        var tallies: [String: FanOutTally] = [:]
        /// The condition sends each device took its copy of.
        var conditionCopies: [DeviceKey: ConditionCopies] = [:]

        /// Puts topic `id` in the own set of `key`'s device; returns whether it was not there.
        mutating func insert(_ id: UInt32, intoTopicsOf key: DeviceKey) -> Bool {
            TopicStates.insert(id, into: &deviceTopics[key, default: []])
        }

        /// Takes topic `id` out of the own set of `key`'s device; returns whether it was there. A
        /// set left empty goes: equality and the names' counts see no empty sets.
        mutating func remove(_ id: UInt32, fromTopicsOf key: DeviceKey) -> Bool {
            guard let device = deviceTopics.index(forKey: key) else { return false }
            let (place, found) = TopicStates.place(of: id, in: deviceTopics.values[device])
            guard found else { return false }
            if deviceTopics.values[device].count == 1 {
                deviceTopics.remove(at: device)
            } else {
                deviceTopics.values[device].remove(at: place)
            }
            return true
        }
    }

    var partitions: [Int32: Partition] = [:]
    private var names = TopicNames()
    /// The number of the open batch (``DeviceStates/seal()``), which joins and leaves of a
    /// partition served from its rows are noted in.
    var openBatch: UInt64 = 0

    /// No partitions held.
    public init() {}

    /// Memberships held, over every topic of every partition.
    public var membershipCount: Int {
        partitions.values.reduce(0) { sum, partition in
            sum + (partition.served?.membershipCount ?? partition.members.values.reduce(0) { $0 + $1.count })
        }
    }

    /// Memberships held in memory: ``membershipCount`` but in partitions served from their rows,
    /// once the rows hold them.
    public var membershipsInMemory: Int {
        partitions.values.reduce(0) { sum, partition in partition.members.values.reduce(sum) { $0 + $1.count } }
    }

    /// Topic names held for devices' own sets (set aside ones' too): equality compares names, not
    /// how they are held.
    var topicNameCount: Int { names.count }

    /// Starts holding a partition, with no topics yet (before its changelog is replayed).
    mutating func adopt(_ partition: Int32) { partitions[partition] = Partition() }

    /// Drops a partition's topic state (its partition was revoked).
    mutating func drop(_ partition: Int32) {
        if let dropped = partitions.removeValue(forKey: partition) {
            for topics in dropped.deviceTopics.values {
                for id in topics { names.release(id) }
            }
        }
    }

    /// Whether `topic` is in the device's own set.
    func hasTopic(_ topic: String, token: String, in partition: Int32) -> Bool {
        guard let id = names.id(of: topic), let topics = partitions[partition]?.deviceTopics[DeviceKey(token: token)]
        else { return false }
        return Self.place(of: id, in: topics).found
    }

    /// Topics in the device's own set.
    func topicCount(of token: String, in partition: Int32) -> Int {
        partitions[partition]?.deviceTopics[DeviceKey(token: token)]?.count ?? 0
    }

    /// Whether `token` is a member of `topic`, whose partition `partition` is. Served from its
    /// rows, the partition answers from what the open batch read of them
    /// (``membersToRead(_:in:chunkMembers:)``): nil for a member not read.
    func isMember(_ token: String, of topic: String, in partition: Int32) -> Bool? {
        guard let served = partitions[partition]?.served, !served.holdsMembers else {
            return partitions[partition]?.members[topic]?.contains(token) == true
        }
        return served.isMember(token, of: topic)
    }

    /// The topics in the device's own set, sorted.
    func topics(of token: String, in partition: Int32) -> [String] {
        (partitions[partition]?.deviceTopics[DeviceKey(token: token)] ?? []).map(names.name(of:)).sorted()
    }

    /// The walk (the topic's place in the condition) `token`'s device took its copy of condition
    /// send `sendID` from; nil when it took none.
    func walkTaken(_ token: String, for sendID: String, in partition: Int32) -> Int? {
        partitions[partition]?.conditionCopies[DeviceKey(token: token)]?.walk(for: sendID)
    }

    /// The condition sends `token`'s device took its copy of.
    func conditionCopies(of token: String, in partition: Int32) -> ConditionCopies? {
        partitions[partition]?.conditionCopies[DeviceKey(token: token)]
    }

    /// Whether the device is in each of `topics`, by its own set.
    func memberships(of token: String, in topics: [String], partition: Int32) -> [Bool] {
        let ids = partitions[partition]?.deviceTopics[DeviceKey(token: token)] ?? []
        return topics.map { topic in names.id(of: topic).map { Self.place(of: $0, in: ids).found } ?? false }
    }

    /// Fan-outs in progress over every partition held: walks, and tallies awaiting their count.
    public var fanOutsInProgress: (walks: Int, tallies: Int) {
        partitions.values.reduce((0, 0)) { ($0.0 + $1.walks.count, $0.1 + $1.tallies.count) }
    }

    /// The walk `key` of `partition`'s topics, if it is in progress.
    func walk(_ key: FanOutWalk.Key, in partition: Int32) -> FanOutWalk? { partitions[partition]?.walks[key] }

    /// The walks in progress of `partition`'s topics.
    func walks(in partition: Int32) -> [FanOutWalk.Key] { Array(partitions[partition]?.walks.keys ?? [:].keys) }

    /// The tally of send `sendID`, coordinated in `partition`, if it is in progress.
    func tally(_ sendID: String, in partition: Int32) -> FanOutTally? { partitions[partition]?.tallies[sendID] }

    /// How many members `topic`, whose partition `partition` is, has.
    public func memberCount(of topic: String, in partition: Int32) -> Int {
        guard let served = partitions[partition]?.served else {
            return partitions[partition]?.members[topic]?.count ?? 0
        }
        return served.counts[topic] ?? 0
    }

    /// The member count of each of `topics`, of `partition`'s.
    public func memberCounts(of topics: some Sequence<String>, in partition: Int32) -> [String: Int] {
        var counts: [String: Int] = [:]
        for topic in topics where counts[topic] == nil { counts[topic] = memberCount(of: topic, in: partition) }
        return counts
    }

    /// The members of `topic`, whose partition `partition` is, that a walk's chunk from `cursor`
    /// reads: every member, or, served from its rows, those the open batch read from `cursor`
    /// on (``membersToRead(_:in:chunkMembers:)``); nil when it did not read them.
    func members(of topic: String, from cursor: TopicMembers.Cursor, in partition: Int32) -> TopicMembers? {
        guard let served = partitions[partition]?.served, !served.holdsMembers else {
            return partitions[partition]?.members[topic] ?? TopicMembers()
        }
        return served.members(of: topic, from: cursor)
    }

    /// The members of each topic of `partition`.
    public func members(in partition: Int32) -> [String: TopicMembers] { partitions[partition]?.members ?? [:] }

    /// Applies `change` to `partition`'s topic state: the one way topic state changes, live
    /// (``RecordProcessor`` records each change it applies) and when restoring the changelog.
    public mutating func apply(_ change: TopicChange, in partition: Int32) {
        switch change {
        case .member(let topic, let token, let isMember):
            if partitions[partition]?.served != nil {
                guard noteServed(isMember, token: token, topic: topic, in: partition) else { return }
            }
            if isMember {
                partitions[partition, default: Partition()].members[topic, default: TopicMembers()].insert(token)
            } else {
                guard partitions[partition]?.members[topic]?.remove(token) == true else { return }
                if partitions[partition]?.members[topic]?.count == 0 { partitions[partition]?.members[topic] = nil }
            }
        case .deviceTopic(let token, let topic, true):
            join(token, to: topic, in: partition)
        case .deviceTopic(let token, let topic, false):
            leave(token, from: topic, in: partition)
        case .conditionCopies(let token, let copies):
            partitions[partition, default: Partition()].conditionCopies[DeviceKey(token: token)] = copies
        case .walk(let key, let walk):
            partitions[partition, default: Partition()].walks[key] = walk
        case .tally(let sendID, nil):
            partitions[partition, default: Partition()].tallies[sendID] = nil
        case .tally(let sendID, let subject?):
            // Written once when the tally begins: a repeat leaves what it accounted for.
            if tally(sendID, in: partition) == nil {
                partitions[partition, default: Partition()].tallies[sendID] = FanOutTally(message: subject)
            }
        case .walkEnded(let sendID, _, _), .tallyProgress(let sendID, _, _):
            partitions[partition]?.tallies[sendID]?.apply(change)
        }
    }

    /// Puts `topic` in the device's own set. A restore replays millions of these: the device's
    /// set is looked up once and changed in place. The name is held first, for its id, and let
    /// go again when the device had it already.
    private mutating func join(_ token: String, to topic: String, in partition: Int32) {
        let id = names.hold(topic)
        let joined = partitions[partition, default: Partition()].insert(id, intoTopicsOf: DeviceKey(token: token))
        if !joined { names.release(id) }
    }

    /// Takes `topic` out of the device's own set.
    private mutating func leave(_ token: String, from topic: String, in partition: Int32) {
        guard let id = names.id(of: topic),
            partitions[partition]?.remove(id, fromTopicsOf: DeviceKey(token: token)) == true
        else { return }
        names.release(id)
    }

    /// Whether both hold the same topic state: device topic sets are compared by their names,
    /// since the ids a worker gives names depend on the order they came and went in.
    public static func == (lhs: TopicStates, rhs: TopicStates) -> Bool {
        guard lhs.partitions.count == rhs.partitions.count else { return false }
        return lhs.partitions.allSatisfy { number, left in
            guard let right = rhs.partitions[number] else { return false }
            return left.members == right.members && left.served == right.served && left.walks == right.walks
                && left.tallies == right.tallies
                && left.conditionCopies == right.conditionCopies
                && left.deviceTopics.mapValues { $0.map(lhs.names.name(of:)).sorted() }
                    == right.deviceTopics.mapValues { $0.map(rhs.names.name(of:)).sorted() }
        }
    }

    /// Where `id` is in the sorted `ids`, or where it would go.
    private static func place(of id: UInt32, in ids: [UInt32]) -> (index: Int, found: Bool) {
        let index = ids.partitionPoint { $0 < id }
        return (index, index < ids.count && ids[index] == id)
    }

    /// Puts `id` in the sorted `ids`; returns whether it was not there.
    private static func insert(_ id: UInt32, into ids: inout [UInt32]) -> Bool {
        let (index, found) = place(of: id, in: ids)
        guard !found else { return false }
        ids.insert(id, at: index)
        return true
    }
}

extension TopicStates {
    /// One partition's topic state, set aside while its partition is suspended
    /// (``DeviceStates/suspend(_:coveredTo:)``). The topic names its devices hold stay held.
    struct Suspended: Sendable {
        fileprivate var partition: Partition
    }

    /// Sets `partition`'s topic state aside: the partition is no longer held.
    mutating func suspend(_ partition: Int32) -> Suspended? {
        partitions.removeValue(forKey: partition).map(Suspended.init)
    }

    /// Holds `partition` again with the topic state set aside, in place of what it holds (the
    /// nothing of a partition just adopted).
    mutating func resume(_ suspended: Suspended, as partition: Int32) {
        drop(partition)
        partitions[partition] = suspended.partition
        // Served from its rows, which hold every change now.
        if partitions[partition]?.served?.resume() == true { partitions[partition]?.members = [:] }
    }

    /// Lets go of topic state set aside: the names its devices held are released.
    mutating func discard(_ suspended: Suspended) {
        for topics in suspended.partition.deviceTopics.values {
            for id in topics { names.release(id) }
        }
    }
}
