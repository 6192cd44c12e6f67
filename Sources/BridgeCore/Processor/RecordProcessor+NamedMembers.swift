extension RecordProcessor {
    /// Adds to `reads` what processing `decoded` reads of its partition's topics' members: the
    /// tokens a topic's hop joins or leaves, and the cursor a walk's chunk starts from (a walk's
    /// first, or a step of a walk `topics` holds). What a store serving members reads before the
    /// record is processed (``TopicStates/membersToRead(_:in:chunkMembers:)``).
    public func members<Record>(
        namedBy decoded: DecodedRecord<Record>, topics: TopicStates, into reads: inout MemberReads
    ) {
        switch decoded.content {
        case .repartition(.success(.membership(let change))):
            reads.memberships[change.topic, default: []] += change.tokens
            if change.action == .unsubscribe { reads.leaves[change.topic, default: 0] += change.tokens.count }
        case .repartition(.success(.fanOut(.walk(let message, let index)))):
            let key = FanOutWalk.Key(sendID: message.sendID, topicIndex: index)
            // A walk processed again goes on as it began: its topic is the walk's.
            let started = topics.walk(key, in: decoded.record.partition)?.message ?? message
            let walked = started.target.condition.topics
            guard walked.indices.contains(index) else { return }
            // Its first chunk, from the start (segment 0's first step), again when processed again.
            reads.walks[walked[index], default: []].insert(.start)
            if reads.startedWalks[key] == nil { reads.startedWalks[key] = walked[index] }
        case .repartition(.success(.fanOut(.step(let sendID, let index, let step)))):
            let key = FanOutWalk.Key(sendID: sendID, topicIndex: index)
            // A walk's steps may follow the walk, processed again, in the same batch.
            let walked = topics.walk(key, in: decoded.record.partition)?.message.target.condition.topics ?? []
            guard let topic = walked.indices.contains(index) ? walked[index] : reads.startedWalks[key] else { return }
            reads.walks[topic, default: []].insert(step.cursor)
        case .repartition, .send, .presence, .subscriptions, .unexpected: return
        }
    }
}
