import FCMTranslation

/// Topic and condition sends, in three parts that meet through the repartition topic:
///
/// 1. The send is translated once and sent to the owner of each of its topics (`fanout-walk`).
/// 2. Each topic's owner walks the topic's members in chunks of at most
///    ``FanOutWalk/chunkMembers``, one chunk per input: it sends each chunk's devices to their
///    owners, one record per device partition, records the walk's progress, and sends itself the
///    next step (`fanout-next`) behind whatever else waits on the partition, in one transaction.
///    A killed worker resumes from the last committed step; other inputs and other fan-outs
///    take their turns between chunks. A walk that ends tells the coordinator (the first topic's
///    owner) how many records it sent.
/// 3. Each device's owner gives the device its copy when the device takes it from this topic,
///    and acknowledges the record to the coordinator, which publishes `fanned_out` once every
///    record of every walk is acknowledged.
///
/// A device takes a copy of a condition send from the first of the condition's topics it is in
/// (by its own set) and only when its topics satisfy the condition, so a device in two topics of
/// an `||` gets one copy. A device takes a copy of a topic send from the topic's walk, which is
/// the topic's members when its owner processed the send.
extension RecordProcessor {
    /// Step 1: a walk of each of the send's topics, at its owner.
    func fanOut(_ message: FanOutMessage, outputs: inout OutputRecords) {
        for (index, topic) in message.target.condition.topics.enumerated() {
            repartition.record(
                .walk(message, topicIndex: index), partition: statePartition(ofTopic: topic), to: &outputs)
        }
    }

    /// Handles a fan-out's step in `partition`, which this worker holds.
    func handle(_ fanOut: FanOutRecord, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords) {
        switch fanOut {
        case .walk(let message, let index):
            startWalk(of: message, topicIndex: index, in: partition, states: &states, outputs: &outputs)
        case .next(let sendID, let index, let segment):
            let key = FanOutWalk.Key(sendID: sendID, topicIndex: index)
            // None: the walk ended already, and this is a repeat.
            guard var walk = states.topics.walk(key, in: partition) else { return }
            walkChunk(of: &walk, segment: segment, in: partition, states: &states, outputs: &outputs)
        case .copies(let message, let index, let sequence, let tokens):
            var accepted = 0
            for token in tokens where takesCopy(token, of: message, from: index, in: partition, states: states) {
                let routed = RoutedInput(token: token, input: .send(message.copy(for: token)), time: message.time)
                handle(routed, in: partition, states: &states, outputs: &outputs)
                accepted += 1
            }
            let acknowledgement = FanOutRecord.acknowledged(
                sendID: message.sendID, topicIndex: index, partition: partition, sequence: sequence, accepted: accepted)
            repartition.record(
                acknowledgement, partition: statePartition(ofTopic: message.target.firstTopic), to: &outputs)
        case .walkEnded(let sendID, let index, let records):
            settle(sendID, in: partition, states: &states, outputs: &outputs) {
                $0.walkEnded(topic: index, records: records)
            }
        case .acknowledged(let sendID, let index, let devicePartition, let sequence, let accepted):
            settle(sendID, in: partition, states: &states, outputs: &outputs) {
                $0.acknowledged(topic: index, partition: devicePartition, sequence: sequence, accepted: accepted)
            }
        }
    }

    /// Step 2 begins: the coordinator's tally (for the first topic), and the walk's first chunk;
    /// a large topic's other segments start by their own inputs.
    private func startWalk(
        of message: FanOutMessage, topicIndex index: Int, in partition: Int32, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        let topics = message.target.condition.topics
        guard topics.indices.contains(index) else { return }
        if index == 0, states.topics.tally(message.sendID, in: partition) == nil {
            let subject = FanOutStatusSubject(sendID: message.sendID, target: message.target, time: message.time)
            let tally = FanOutTally(message: subject, partitions: Int(statePartitions))
            states.topics.setTally(message.sendID, tally, in: partition)
            changelog.record(.tally(sendID: message.sendID, tally), partition: partition, to: &outputs)
        }
        let key = FanOutWalk.Key(sendID: message.sendID, topicIndex: index)
        guard states.topics.walk(key, in: partition) == nil else { return }  // a repeat
        let memberCount = states.topics.members(of: topics[index], in: partition)?.count ?? 0
        var walk = FanOutWalk(
            message: message, topicIndex: index, memberCount: memberCount, partitions: Int(statePartitions))
        for segment in walk.cursors.indices.dropFirst() {
            repartition.record(
                .next(sendID: message.sendID, topicIndex: index, segment: segment), partition: partition, to: &outputs)
        }
        walkChunk(of: &walk, segment: 0, in: partition, states: &states, outputs: &outputs)
    }

    /// One chunk of a walk's segment: its devices' records, one per device partition; the walk's
    /// progress; and the segment's next step, or the walk's end to the coordinator.
    private func walkChunk(
        of walk: inout FanOutWalk, segment: Int, in partition: Int32, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        let topics = walk.message.target.condition.topics
        guard topics.indices.contains(walk.topicIndex) else { return }
        let members = states.topics.members(of: topics[walk.topicIndex], in: partition)
        var byPartition: [Int32: [String]] = [:]
        for token in walk.nextChunk(of: segment, in: members) {
            byPartition[statePartition(of: token), default: []].append(token)
        }
        for (devicePartition, tokens) in byPartition.sorted(by: { $0.key < $1.key }) {
            guard let sequence = walk.nextSequence(to: devicePartition) else { continue }
            repartition.record(
                .copies(walk.message, topicIndex: walk.topicIndex, sequence: sequence, tokens: tokens),
                partition: devicePartition, to: &outputs)
        }
        let key = walk.key
        if walk.isFinished {
            states.topics.setWalk(key, nil, in: partition)
            changelog.record(.walk(key, nil), partition: partition, to: &outputs)
            repartition.record(
                .walkEnded(sendID: key.sendID, topicIndex: key.topicIndex, records: walk.sequences),
                partition: statePartition(ofTopic: walk.message.target.firstTopic), to: &outputs)
            return
        }
        states.topics.setWalk(key, walk, in: partition)
        changelog.record(.walk(key, walk), partition: partition, to: &outputs)
        if walk.cursors.indices.contains(segment), walk.cursors[segment] != nil {
            repartition.record(
                .next(sendID: key.sendID, topicIndex: key.topicIndex, segment: segment), partition: partition,
                to: &outputs)
        }
    }

    /// Whether `token` takes its copy of `message` from the walk of topic `index`: always for a
    /// topic send; for a condition, when the device's own topics satisfy it and `index` is the
    /// first of them in the condition.
    private func takesCopy(
        _ token: String, of message: FanOutMessage, from index: Int, in partition: Int32, states: DeviceStates
    ) -> Bool {
        let condition = message.target.condition
        guard condition.topics.count > 1 else { return index == 0 }
        let isMember = states.topics.memberships(of: token, in: condition.topics, partition: partition)
        return isMember.firstIndex(of: true) == index
            && condition.isSatisfied(by: { isMember.indices.contains($0) && isMember[$0] })
    }

    /// Step 3 at the coordinator: applies a walk's end or an acknowledgement to the send's tally
    /// (none: it completed, and this is a repeat), and publishes `fanned_out` once it is complete.
    private func settle(
        _ sendID: String, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords,
        _ change: (inout FanOutTally) -> Void
    ) {
        guard var tally = states.topics.tally(sendID, in: partition) else { return }
        change(&tally)
        guard tally.isComplete else {
            states.topics.setTally(sendID, tally, in: partition)
            changelog.record(.tally(sendID: sendID, tally), partition: partition, to: &outputs)
            return
        }
        states.topics.setTally(sendID, nil, in: partition)
        changelog.record(.tally(sendID: sendID, nil), partition: partition, to: &outputs)
        encoder.status(
            AddressedStatus(
                token: nil, status: .fannedOut(messageID: sendID, count: tally.count, at: tally.message.time),
                target: tally.message.target), to: &outputs)
    }
}
