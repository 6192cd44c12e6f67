import FCMTranslation

/// Subscriptions, in two hops: each token's device owner checks and records the topic in the
/// device's own set, then the topic's owner records the member and publishes the status, so
/// that a `subscribed` status is out only once a fan-out of the topic would reach the device.
/// Each hop carries a request's devices of one partition in one record (as many as fit).
extension RecordProcessor {
    /// A subscription request: its refused tokens and its rejection get their statuses; the
    /// accepted tokens go to their devices' state partitions, those of a partition together.
    func admitSubscription(
        _ decoded: Result<SubscriptionRequest, Rejection>, of record: some InputRecord, outputs: inout OutputRecords
    ) {
        let time = EventTime.reported(record.createTime)
        switch decoded {
        case .success(let request):
            for refused in request.refused {
                encoder.status(
                    AddressedStatus(token: nil, status: .rejected(messageID: nil, refused, at: time)), to: &outputs)
            }
            if let first = request.refused.first { reject(record, first, outputs: &outputs) }
            var byPartition: [Int32: [String]] = [:]
            for token in request.tokens { byPartition[statePartition(of: token), default: []].append(token) }
            for (partition, tokens) in byPartition.sorted(by: { $0.key < $1.key }) {
                let change = MembershipChange(topic: request.topic, tokens: tokens, action: request.action, time: time)
                for part in change.parts(maxBytes: tokenRoom(for: change)) {
                    repartition.record(part, toTopic: false, partition: partition, to: &outputs)
                }
            }
        case .failure(let rejection):
            let tokens: [String?] = rejection.tokens.isEmpty ? [nil] : rejection.tokens
            for token in tokens {
                encoder.status(
                    AddressedStatus(token: token, status: .rejected(messageID: nil, rejection, at: time)), to: &outputs)
            }
            reject(record, rejection, outputs: &outputs)
        }
    }

    /// The devices' hop: records the topic in (or out of) each device's own set, or refuses a
    /// subscription past the limit, and sends the changes on to the topic's owner.
    func subscription(
        _ change: MembershipChange, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        var applied = change
        applied.tokens = change.tokens.filter { token in
            subscription(
                change.action, topic: change.topic, token: token, in: partition, at: change.time,
                states: &states, outputs: &outputs)
        }
        for part in applied.parts(maxBytes: tokenRoom(for: applied)) {
            repartition.record(part, toTopic: true, partition: statePartition(ofTopic: change.topic), to: &outputs)
        }
        forgetIdle(in: partition, at: change.time, states: &states, outputs: &outputs)
    }

    /// One device's side of a subscription; whether the topic's owner is to hear of it (not
    /// when it was refused).
    private func subscription(
        _ action: SubscriptionRequest.Action, topic: String, token: String, in partition: Int32, at time: Int64,
        states: inout DeviceStates, outputs: inout OutputRecords
    ) -> Bool {
        switch action {
        case .subscribe:
            if let created = states.ensureDevice(token, in: partition, at: time) {
                changelog.record(created, token: token, partition: partition, to: &outputs)
            }
            // In the set already: the topic's owner is told again, and says so again.
            guard !states.topics.hasTopic(topic, token: token, in: partition) else { return true }
            guard states.topics.topicCount(of: token, in: partition) < rules.maxTopicsPerDevice else {
                var rejection = Rejection(
                    .tooManyTopics,
                    "topic \(topic): the device is subscribed to \(rules.maxTopicsPerDevice) topics, the most it may have"
                )
                rejection.tokens = [token]
                encoder.status(
                    AddressedStatus(token: token, status: .rejected(messageID: nil, rejection, at: time)), to: &outputs)
                return false
            }
            applyAndRecord(
                .deviceTopic(token: token, topic: topic, isSubscribed: true), in: partition, states: &states,
                outputs: &outputs)
        case .unsubscribe:
            if states.topics.hasTopic(topic, token: token, in: partition) {
                applyAndRecord(
                    .deviceTopic(token: token, topic: topic, isSubscribed: false), in: partition, states: &states,
                    outputs: &outputs)
            }
        }
        return true
    }

    /// The topic's hop: records each member (or its leaving) and publishes its status.
    func apply(
        _ change: MembershipChange, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        let isMember = change.action == .subscribe
        var notRead = 0
        for token in change.tokens {
            let wasMember = states.topics.isMember(token, of: change.topic, in: partition)
            if wasMember == nil { notRead += 1 }
            if wasMember ?? false != isMember {
                applyAndRecord(
                    .member(topic: change.topic, token: token, isMember: isMember), in: partition, states: &states,
                    outputs: &outputs)
            }
            guard !change.isForgetting else { continue }
            encoder.status(
                AddressedStatus(
                    token: token, status: .subscription(change.action, topic: change.topic, at: change.time)),
                to: &outputs)
        }
        if notRead > 0 {
            logger.error(
                "a topic's hop was not read from the device rows before its batch; its members not read are taken for none",
                metadata: ["topic": "\(change.topic)", "partition": "\(partition)", "tokens": "\(notRead)"])
        }
    }

    /// The token bytes one record of `change` may hold beside its topic and framing.
    private func tokenRoom(for change: MembershipChange) -> Int {
        limits.room(beside: change.topic.utf8.count)
    }
}
