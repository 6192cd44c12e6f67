import FCMTranslation

/// Topic and condition sends, in three parts that meet through the repartition topic:
///
/// 1. The send is translated once and sent to the owner of each of its topics (`fanout-walk`).
/// 2. Each topic's owner walks the topic's members in chunks of at most
///    ``FanOutWalk/chunkMembers``, one chunk per input: it sends each chunk's devices to their
///    owners, one record per device partition, and sends itself the next step (`fanout-step`,
///    which says where to go on) behind whatever else waits on the partition, in one
///    transaction. A killed worker resumes from the last committed step, and a step processed
///    again walks its chunk again; other inputs and other fan-outs take their turns between
///    chunks. A walk that ends tells the coordinator (the first topic's owner) the last chunk it
///    sent to each device partition.
/// 3. Each device's owner gives the device its copy when the device takes it from this topic,
///    and acknowledges the record to the coordinator, which publishes `fanned_out` once every
///    record of every walk is acknowledged.
///
/// A device takes a copy of a condition send from the first of the condition's walks that
/// reaches it while its own topics satisfy the condition, and its partition remembers the send
/// (``ConditionCopies``) so that the others' copies are repeats: a device in two topics of an
/// `||` gets one copy. A device takes a copy of a topic send from the topic's walk, which reads
/// the topic's members as it reaches each bucket: a member that left before the walk reached it
/// is not sent one.
extension RecordProcessor {
    /// Step 1: a walk of each of the send's topics, at its owner.
    func fanOut(_ message: FanOutMessage, outputs: inout OutputRecords) {
        for (index, topic) in message.target.condition.topics.enumerated() {
            repartition.record(
                .walk(message, topicIndex: index), partition: statePartition(ofTopic: topic), to: &outputs)
        }
    }

    /// Handles a fan-out's record in `partition`, which this worker holds.
    func handle(_ fanOut: FanOutRecord, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords) {
        switch fanOut {
        case .walk(let message, let index):
            startWalk(of: message, topicIndex: index, in: partition, states: &states, outputs: &outputs)
        case .step(let sendID, let index, let step):
            // None: the walk ended already, and this step is a repeat.
            guard var walk = states.topics.walk(FanOutWalk.Key(sendID: sendID, topicIndex: index), in: partition)
            else { return }
            take(step, of: &walk, in: partition, states: &states, outputs: &outputs)
        case .copies(let message, let index, let segment, let chunk, let tokens):
            var accepted = 0
            for token in tokens {
                switch copyDecision(token, of: message, from: index, in: partition, states: states) {
                case .take:
                    let routed = RoutedInput(token: token, input: .send(message.copy(for: token)), time: message.time)
                    applyToDevice(routed, in: partition, states: &states, outputs: &outputs)
                    // One walk, for a topic or a condition of one topic: no other to take it from.
                    if message.target.condition.topics.count > 1 {
                        var copies = states.topics.conditionCopies(of: token, in: partition) ?? ConditionCopies()
                        copies.note(message.sendID, walk: index, sentAt: message.time)
                        applyAndRecord(
                            .conditionCopies(token: token, copies), in: partition, states: &states, outputs: &outputs)
                    }
                    accepted += 1
                case .takenFromThisWalk:
                    accepted += 1  // this record processed again: counted, not applied again
                case .refuse:
                    break
                }
            }
            // Once per record, as for any input: the sweep's work is bounded per input.
            forgetIdle(in: partition, at: message.time, states: &states, outputs: &outputs)
            outputs.tally.fanOutCopies &+= accepted
            let acknowledgement = FanOutRecord.acknowledged(
                sendID: message.sendID, topicIndex: index, FanOutTally.Channel(segment: segment, partition: partition),
                chunk: chunk, accepted: accepted)
            repartition.record(
                acknowledgement, partition: statePartition(ofTopic: message.target.firstTopic), to: &outputs)
        case .walkEnded(let sendID, let index, let lastChunks):
            guard let tally = states.topics.tally(sendID, in: partition) else { return }  // completed: a repeat
            if let change = tally.walkEnd(topic: index, lastChunks: lastChunks) {
                applyAndRecord(change, in: partition, states: &states, outputs: &outputs)
            }
            settle(sendID, in: partition, states: &states, outputs: &outputs)
        case .acknowledged(let sendID, let index, let channel, let chunk, let accepted):
            guard let tally = states.topics.tally(sendID, in: partition) else { return }  // completed: a repeat
            if let change = tally.acknowledgement(topic: index, channel: channel, chunk: chunk, accepted: accepted) {
                applyAndRecord(change, in: partition, states: &states, outputs: &outputs)
            }
            settle(sendID, in: partition, states: &states, outputs: &outputs)
        }
    }

    /// Step 2 begins: the coordinator's tally (for the first topic), the walk, and its first
    /// chunk; a large topic's other segments start by their own inputs.
    private func startWalk(
        of message: FanOutMessage, topicIndex index: Int, in partition: Int32, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        let topics = message.target.condition.topics
        guard topics.indices.contains(index) else { return }
        if index == 0, states.topics.tally(message.sendID, in: partition) == nil {
            let subject = FanOutStatusSubject(sendID: message.sendID, target: message.target, time: message.time)
            applyAndRecord(.tally(sendID: message.sendID, subject), in: partition, states: &states, outputs: &outputs)
        }
        let key = FanOutWalk.Key(sendID: message.sendID, topicIndex: index)
        var walk: FanOutWalk
        if let started = states.topics.walk(key, in: partition) {
            // Processed again (its offset was not committed, its changelog records landed): what
            // it wrote besides may not have, so it is written again; a chunk walked twice is
            // acknowledged once.
            walk = started
        } else {
            let memberCount = states.topics.memberCount(of: topics[index], in: partition)
            walk = FanOutWalk(
                message: message, topicIndex: index, memberCount: memberCount, partitions: Int(statePartitions))
            applyAndRecord(.walk(key, walk), in: partition, states: &states, outputs: &outputs)
        }
        // This input walks the first chunk of segment 0 (again, when processed again); the other
        // segments start by their own steps, but for those whose steps surely landed: they ended.
        let steps = walk.firstSteps
        for step in steps.dropFirst() where walk.ended[step.segment] == nil {
            repartition.record(.step(sendID: key.sendID, topicIndex: index, step), partition: partition, to: &outputs)
        }
        if let first = steps.first { take(first, of: &walk, in: partition, states: &states, outputs: &outputs) }
    }

    /// One step of a walk: its chunk's devices, one record per device partition; then the
    /// segment's next step, or the segment's end in the walk's record, or the walk's end (to
    /// the coordinator).
    private func take(
        _ step: FanOutWalk.Step, of walk: inout FanOutWalk, in partition: Int32, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        let topics = walk.message.target.condition.topics
        guard topics.indices.contains(walk.topicIndex) else { return }
        // A copies record holds the `apns` object, the target and the tokens: room for the longest
        // token is checked when the send is admitted; a walk record from elsewhere without it
        // reaches nobody rather than make records the producer refuses.
        let room = limits.room(beside: walk.message.apns.count + walk.message.target.text.utf8.count)
        var members = states.topics.members(of: topics[walk.topicIndex], from: step.cursor, in: partition)
        if members == nil {
            logger.error(
                "a fan-out's chunk was not read from the device rows before its batch; its segment ends",
                metadata: ["send": "\(walk.message.sendID)", "partition": "\(partition)"])
        }
        if room < RequestDecoder.maximumTokenBytes {
            logger.error(
                "a fan-out's message does not fit its records; it reaches nobody",
                metadata: ["send": "\(walk.message.sendID)"])
            members = nil
        }
        let (copies, next) = walk.walk(step, in: members, maxBytes: room, partition: statePartition(of:))
        let key = walk.key
        for (devicePartition, tokens) in copies {
            repartition.record(
                .copies(
                    walk.message, topicIndex: key.topicIndex, segment: step.segment, chunk: step.chunk, tokens: tokens),
                partition: devicePartition, to: &outputs)
        }
        if let next {
            repartition.record(
                .step(sendID: key.sendID, topicIndex: key.topicIndex, next), partition: partition, to: &outputs)
        } else if walk.isFinished {
            applyAndRecord(.walk(key, nil), in: partition, states: &states, outputs: &outputs)
            repartition.record(
                .walkEnded(sendID: key.sendID, topicIndex: key.topicIndex, lastChunks: walk.lastChunks),
                partition: statePartition(ofTopic: walk.message.target.firstTopic), to: &outputs)
        } else {
            applyAndRecord(.walk(key, walk), in: partition, states: &states, outputs: &outputs)
        }
    }

    /// What a device does with its copy from a walk.
    private enum CopyDecision {
        case take
        /// It took it from this very walk: this record is processed again.
        case takenFromThisWalk
        case refuse
    }

    /// Whether `token` takes its copy of `message` from the walk of topic `index`: always for a
    /// topic send (one walk); for a condition, when the device's own topics satisfy it and it did
    /// not take its copy from another of the condition's walks (which it remembers).
    private func copyDecision(
        _ token: String, of message: FanOutMessage, from index: Int, in partition: Int32, states: DeviceStates
    ) -> CopyDecision {
        let condition = message.target.condition
        guard message.target.kind == .condition else { return index == 0 ? .take : .refuse }
        if let taken = states.topics.walkTaken(token, for: message.sendID, in: partition) {
            return taken == index ? .takenFromThisWalk : .refuse
        }
        let isMember = states.topics.memberships(of: token, in: condition.topics, partition: partition)
        return condition.isSatisfied(by: { isMember.indices.contains($0) && isMember[$0] }) ? .take : .refuse
    }

    /// Step 3 at the coordinator: once the tally of `sendID` is complete, publishes
    /// `fanned_out` and forgets it.
    private func settle(_ sendID: String, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords)
    {
        guard let tally = states.topics.tally(sendID, in: partition), tally.isComplete else { return }
        applyAndRecord(.tally(sendID: sendID, nil), in: partition, states: &states, outputs: &outputs)
        for index in tally.expected.indices {
            applyAndRecord(
                .walkEnded(sendID: sendID, topicIndex: index, lastChunks: nil), in: partition, states: &states,
                outputs: &outputs)
        }
        for channel in tally.progress.keys {
            applyAndRecord(
                .tallyProgress(sendID: sendID, channel, nil), in: partition, states: &states, outputs: &outputs)
        }
        let subject = tally.message
        encoder.status(
            AddressedStatus(
                token: nil, status: .fannedOut(messageID: sendID, count: tally.count, at: subject.time),
                target: subject.target), to: &outputs)
    }
}
