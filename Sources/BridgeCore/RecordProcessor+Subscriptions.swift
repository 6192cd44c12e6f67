import FCMTranslation

/// Subscriptions, in two hops: each token's device owner checks and records the topic in the
/// device's own set, then the topic's owner records the member and publishes the status, so
/// that a `subscribed` status is out only once a fan-out of the topic would reach the device.
extension RecordProcessor {
    /// A subscription request: its refused tokens and its rejection get their statuses; each
    /// accepted token goes to its device's state partition.
    func admitSubscription(_ record: some InputRecord, states: inout DeviceStates, outputs: inout OutputRecords) {
        let time = EventTime.reported(record.createTime)
        let decoded = SubscriptionRequest.decode(record.value?.readableBytesView).flatMap {
            EventTime.checked($0, at: record.createTime, tokens: $0.tokens)
        }
        switch decoded {
        case .success(let request):
            for refused in request.refused {
                encoder.status(
                    AddressedStatus(token: nil, status: .rejected(messageID: nil, refused, at: time)), to: &outputs)
            }
            if let first = request.refused.first { reject(record, first, outputs: &outputs) }
            for token in request.tokens {
                let routed = RoutedInput(
                    token: token, input: .subscription(request.action, topic: request.topic), time: time)
                route(routed, from: record, colocated: false, states: &states, outputs: &outputs)
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

    /// The device's hop: records the topic in (or out of) the device's own set, or refuses a
    /// subscription past the limit, and sends the membership change on to the topic's owner.
    func subscription(
        _ action: SubscriptionRequest.Action, topic: String, token: String, in partition: Int32, at time: Int64,
        states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        switch action {
        case .subscribe:
            if let created = states.ensureDevice(token, in: partition, at: time) {
                changelog.record(created, token: token, partition: partition, to: &outputs)
            }
            switch states.topics.subscribe(token, to: topic, in: partition, limit: rules.maxTopicsPerDevice) {
            case nil:
                var rejection = Rejection(
                    .tooManyTopics,
                    "topic \(topic): the device is subscribed to \(rules.maxTopicsPerDevice) topics, the most it may have"
                )
                rejection.tokens = [token]
                encoder.status(
                    AddressedStatus(token: token, status: .rejected(messageID: nil, rejection, at: time)), to: &outputs)
                return
            case true?:
                changelog.record(
                    .deviceTopic(token: token, topic: topic, isSubscribed: true), partition: partition, to: &outputs)
            case false?:
                break  // in the set already: the topic's owner is told again, and says so again
            }
        case .unsubscribe:
            if states.topics.unsubscribe(token, from: topic, in: partition) {
                changelog.record(
                    .deviceTopic(token: token, topic: topic, isSubscribed: false), partition: partition, to: &outputs)
            }
        }
        let change = MembershipChange(topic: topic, token: token, action: action, time: time)
        repartition.record(change, partition: statePartition(ofTopic: topic), to: &outputs)
    }

    /// The topic's hop: records the member (or its leaving) and publishes the status.
    func apply(
        _ change: MembershipChange, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        if states.topics.apply(change, in: partition) {
            let isMember = change.action == .subscribe
            changelog.record(
                .member(topic: change.topic, token: change.token, isMember: isMember), partition: partition,
                to: &outputs)
        }
        guard !change.isForgetting else { return }
        encoder.status(
            AddressedStatus(
                token: change.token, status: .subscription(change.action, topic: change.topic, at: change.time)),
            to: &outputs)
    }
}
