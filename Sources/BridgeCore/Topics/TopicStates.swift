/// The topic state of the state partitions this worker holds: the members of each topic whose
/// partition it is (murmur2 of the topic's name), and the topics of each device whose partition
/// it is. Two views of one fact, each where it is needed: a fan-out reads a topic's members, a
/// condition a device's own topics.
///
/// A device's own topics are ids of the worker's ``TopicNames``, sorted, so that a topic in a
/// device's set costs a few bytes, not a copy of its name.
public struct TopicStates: Sendable, Equatable {
    private struct Partition: Sendable, Equatable {
        var members: [String: TopicMembers] = [:]
        var deviceTopics: [DeviceKey: [UInt32]] = [:]
        /// Fan-outs walking this partition's topics.
        var walks: [FanOutWalk.Key: FanOutWalk] = [:]
        /// Fan-outs this partition coordinates (whose first topic is here).
        var tallies: [String: FanOutTally] = [:]
        /// The condition sends each device took its copy of.
        var conditionCopies: [DeviceKey: ConditionCopies] = [:]
    }

    private var partitions: [Int32: Partition] = [:]
    private var names = TopicNames()

    /// No partitions held.
    public init() {}

    /// Memberships held, over every topic of every partition.
    public var membershipCount: Int {
        partitions.values.reduce(0) { sum, partition in partition.members.values.reduce(sum) { $0 + $1.count } }
    }

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

    /// The device's side of a subscription: true when `topic` joined the device's set, false
    /// when it was in it already, nil when the set holds `limit` topics (the subscription is
    /// refused).
    mutating func subscribe(_ token: String, to topic: String, in partition: Int32, limit: Int) -> Bool? {
        let key = DeviceKey(token: token)
        let topics = partitions[partition]?.deviceTopics[key] ?? []
        if let id = names.id(of: topic), Self.place(of: id, in: topics).found { return false }
        guard topics.count < limit else { return nil }
        let id = names.hold(topic)
        let place = Self.place(of: id, in: topics).index
        partitions[partition, default: Partition()].deviceTopics[key, default: []].insert(id, at: place)
        return true
    }

    /// The device's side of an unsubscription: whether `topic` left the device's set.
    mutating func unsubscribe(_ token: String, from topic: String, in partition: Int32) -> Bool {
        let key = DeviceKey(token: token)
        guard let id = names.id(of: topic), let topics = partitions[partition]?.deviceTopics[key] else { return false }
        let (index, found) = Self.place(of: id, in: topics)
        guard found else { return false }
        if topics.count == 1 {
            partitions[partition, default: Partition()].deviceTopics[key] = nil
        } else {
            partitions[partition, default: Partition()].deviceTopics[key, default: []].remove(at: index)
        }
        names.release(id)
        return true
    }

    /// The topic's side: `token` joins or leaves `topic`; whether that changed anything.
    mutating func apply(
        _ action: SubscriptionRequest.Action, topic: String, token: String, in partition: Int32
    ) -> Bool {
        switch action {
        case .subscribe:
            return partitions[partition, default: Partition()].members[topic, default: TopicMembers()].insert(token)
        case .unsubscribe:
            guard partitions[partition]?.members[topic]?.contains(token) == true else { return false }
            partitions[partition, default: Partition()].members[topic, default: TopicMembers()].remove(token)
            if partitions[partition, default: Partition()].members[topic, default: TopicMembers()].count == 0 {
                partitions[partition, default: Partition()].members[topic] = nil
            }
            return true
        }
    }

    /// Forgets a device's own topics (the device is forgotten); returns them.
    mutating func forget(_ token: String, in partition: Int32) -> [String] {
        guard let ids = partitions[partition]?.deviceTopics.removeValue(forKey: DeviceKey(token: token)) else {
            return []
        }
        let topics = ids.map(names.name(of:)).sorted()
        for id in ids { names.release(id) }
        return topics
    }

    /// The walk (the topic's place in the condition) `token`'s device took its copy of condition
    /// send `sendID` from; nil when it took none.
    func walkTaken(_ token: String, for sendID: String, in partition: Int32) -> Int? {
        partitions[partition]?.conditionCopies[DeviceKey(token: token)]?.walk(for: sendID)
    }

    /// Notes that `token`'s device took its copy of condition send `sendID`, sent at `sentAt`,
    /// from walk `topicIndex`; returns what the device now remembers, to record.
    mutating func noteCopy(
        _ token: String, of sendID: String, sentAt: Int64, from topicIndex: Int, in partition: Int32
    ) -> ConditionCopies {
        let key = DeviceKey(token: token)
        var copies = partitions[partition]?.conditionCopies[key] ?? ConditionCopies()
        copies.note(sendID, walk: topicIndex, sentAt: sentAt)
        partitions[partition, default: Partition()].conditionCopies[key] = copies
        return copies
    }

    /// Forgets the condition sends a forgotten device took; whether it had any.
    mutating func forgetConditionCopies(_ token: String, in partition: Int32) -> Bool {
        partitions[partition]?.conditionCopies.removeValue(forKey: DeviceKey(token: token)) != nil
    }

    /// The topics in the device's own set.
    func topics(of token: String, in partition: Int32) -> Set<String> {
        Set((partitions[partition]?.deviceTopics[DeviceKey(token: token)] ?? []).map(names.name(of:)))
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

    /// Records a walk's progress (nil: it ended).
    mutating func setWalk(_ key: FanOutWalk.Key, _ walk: FanOutWalk?, in partition: Int32) {
        partitions[partition, default: Partition()].walks[key] = walk
    }

    /// The tally of send `sendID`, coordinated in `partition`, if it is in progress.
    func tally(_ sendID: String, in partition: Int32) -> FanOutTally? { partitions[partition]?.tallies[sendID] }

    /// Records a tally (nil: it completed).
    mutating func setTally(_ sendID: String, _ tally: FanOutTally?, in partition: Int32) {
        partitions[partition, default: Partition()].tallies[sendID] = tally
    }

    /// The members of `topic`, whose partition `partition` is.
    func members(of topic: String, in partition: Int32) -> TopicMembers? {
        partitions[partition]?.members[topic]
    }

    /// Replays a changelog record's change (when restoring).
    public mutating func restore(_ change: TopicChange, in partition: Int32) {
        switch change {
        case .member(let topic, let token, let isMember):
            _ = apply(isMember ? .subscribe : .unsubscribe, topic: topic, token: token, in: partition)
        case .deviceTopic(let token, let topic, true):
            _ = subscribe(token, to: topic, in: partition, limit: .max)
        case .deviceTopic(let token, let topic, false):
            _ = unsubscribe(token, from: topic, in: partition)
        case .conditionCopies(let token, let copies):
            partitions[partition, default: Partition()].conditionCopies[DeviceKey(token: token)] = copies
        case .walk(let key, let walk):
            setWalk(key, walk, in: partition)
        case .tally(let sendID, nil):
            setTally(sendID, nil, in: partition)
        case .tally(let sendID, let subject?):
            if self.tally(sendID, in: partition) == nil {
                setTally(sendID, FanOutTally(message: subject), in: partition)
            }
        case .walkEnded(let sendID, let index, let lastChunks):
            guard var tally = self.tally(sendID, in: partition), let lastChunks else { return }
            _ = tally.walkEnded(topic: index, lastChunks: lastChunks)
            setTally(sendID, tally, in: partition)
        case .tallyProgress(let sendID, let channel, let progress):
            guard var tally = self.tally(sendID, in: partition) else { return }
            tally.restore(channel, progress)
            setTally(sendID, tally, in: partition)
        }
    }

    /// Where `id` is in the sorted `ids`, or where it would go.
    private static func place(of id: UInt32, in ids: [UInt32]) -> (index: Int, found: Bool) {
        let index = ids.partitionPoint { $0 < id }
        return (index, index < ids.count && ids[index] == id)
    }
}
