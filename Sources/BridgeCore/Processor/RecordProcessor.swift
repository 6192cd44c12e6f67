import BridgeConfig
import DeviceQueues
import FCMTranslation
import Logging

/// Turns each input record into the records to produce, updating device state: the heart of
/// the worker, with no I/O of its own. Send and presence records are decoded here; inputs for
/// a device this partition does not own are forwarded to the repartition topic; inputs for an
/// owned device go through its queue.
public struct RecordProcessor: Sendable {
    let topics: BridgeConfiguration.Topics
    let rules: QueueRules
    let intake: SendIntake
    let encoder: OutputEncoder
    let repartition: RepartitionCodec
    let changelog: ChangelogCodec
    /// Partitions of the repartition and changelog topics: a device lives in
    /// murmur2(token) % statePartitions.
    let statePartitions: Int32
    /// Whether the send topic is partitioned like the state (same partition count), so that its
    /// records keyed right may be handled where they land, without a trip through the repartition
    /// topic. Known once, not looked up per record.
    let sendIsColocated: Bool
    /// Whether the presence topic is, as ``sendIsColocated`` says of the send topic.
    let presenceIsColocated: Bool
    /// How large each output may be.
    let limits: OutputLimits
    let logger: Logger

    /// A processor for `configuration`'s topics and rules, with device state split
    /// `statePartitions` ways, the given inputs partitioned like the state, and outputs within
    /// `limits` (check the configuration with ``OutputLimits/problem(with:)`` first).
    public init(
        configuration: BridgeConfiguration, statePartitions: Int32, colocatedTopics: Set<String>,
        limits: OutputLimits = .librdkafkaDefault, logger: Logger
    ) {
        topics = configuration.topics
        rules = configuration.queue
        intake = SendIntake(
            translator: APNsTranslator(bundleID: configuration.bundleID, payloadLimit: configuration.payloadLimit),
            limits: limits)
        encoder = OutputEncoder()
        repartition = RepartitionCodec(topic: configuration.repartitionTopic)
        changelog = ChangelogCodec(topic: configuration.changelogTopic)
        outputTopicNames = OutputTopic.allCases.map { $0.name(in: configuration) }
        self.statePartitions = statePartitions
        sendIsColocated = colocatedTopics.contains(configuration.topics.send)
        presenceIsColocated = colocatedTopics.contains(configuration.topics.presence)
        self.limits = limits
        self.logger = logger
    }

    /// The topic names of the records processing writes, by ``OutputTopic``.
    public let outputTopicNames: [String]

    /// The input topics whose partition *p* can change state partition *p*, and so be named by
    /// its changelog records, each by its role and name: the repartition topic, and the send and
    /// presence topics where they are partitioned like the state.
    public var stateInputs: [(topic: ChangelogInput.Topic, name: String)] {
        [(.repartition, repartition.topic)] + (sendIsColocated ? [(.send, topics.send)] : [])
            + (presenceIsColocated ? [(.presence, topics.presence)] : [])
    }

    /// Handles one record, writing what to produce to `outputs`: ``decode(_:)``, and then the
    /// decoded record processed.
    public func process(_ record: some InputRecord, states: inout DeviceStates, outputs: inout OutputRecords)
        throws(UnknownRecordKind)
    {
        try process(content(of: record), of: record, states: &states, outputs: &outputs)
    }

    /// Decodes `record` by its topic, reading no state: a send is admitted (decoded, and
    /// translated for each token) here.
    public func decode<Record: InputRecord>(_ record: Record) -> DecodedRecord<Record> {
        DecodedRecord(record: record, content: content(of: record))
    }

    /// What `record` holds, decoded by its topic.
    private func content(of record: some InputRecord) -> DecodedContent {
        switch record.topic {
        case repartition.topic:
            return .repartition(Result { () throws(MalformedRecord) in try repartition.carried(by: record) })
        case topics.send:
            return .send(
                intake.admit(
                    buffer: record.value, partition: record.partition, offset: record.offset, time: record.createTime))
        case topics.presence:
            return .presence(
                PresenceEvent.decode(record.value?.readableBytesView).flatMap {
                    EventTime.checked($0, at: record.createTime, tokens: [$0.token])
                })
        case topics.subscriptions:
            return .subscriptions(
                SubscriptionRequest.decode(record.value?.readableBytesView).flatMap {
                    EventTime.checked($0, at: record.createTime, tokens: $0.tokens)
                })
        default:
            return .unexpected
        }
    }

    /// Handles one decoded record, writing what to produce to `outputs`. Throws for a
    /// repartition record of a kind this version does not know (a newer version's, mid-upgrade),
    /// which must stop the worker rather than be lost.
    public func process<Record: InputRecord>(
        _ decoded: DecodedRecord<Record>, states: inout DeviceStates, outputs: inout OutputRecords
    ) throws(UnknownRecordKind) {
        try process(decoded.content, of: decoded.record, states: &states, outputs: &outputs)
    }

    private func process(
        _ content: DecodedContent, of record: some InputRecord, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) throws(UnknownRecordKind) {
        switch content {
        case .repartition(let result):
            outputs.input = ChangelogInput(.repartition, of: record)
            let carried: RepartitionCodec.Carried
            switch result {
            case .success(let decoded): carried = decoded
            case .failure(let error):
                if error.isUnknownKind { throw UnknownRecordKind(record: error) }
                outputs.tally.note(
                    OutputTally.Note(
                        source: record.position, reason: "undecodable forward",
                        detail: Rejection.capped(error.description), deadLettered: true))
                encoder.deadLetter(record, error: error.description, limits: limits, to: &outputs)
                return
            }
            // A restore counts every repartition record as on its way (by its key); this one is back.
            // A device input read its key and source already.
            if case .device(let routed, let source) = carried {
                states.forwards.arrived(routed.token, in: record.partition, source: source)
            } else if let key = RecordFields.text(record.key) {
                states.forwards.arrived(key, in: record.partition, source: RepartitionCodec.forwardedSource(of: record))
            }
            guard states.owns(record.partition) else {
                // Only reachable if the assignor split a co-partitioned set; forwarding keeps it correct.
                logger.error("state partition not owned; forwarding", metadata: ["partition": "\(record.partition)"])
                repartition.record(carried, partition: record.partition, to: &outputs)
                return
            }
            switch carried {
            case .device(let routed, _): handle(routed, in: record.partition, states: &states, outputs: &outputs)
            case .subscription(let change):
                subscription(change, in: record.partition, states: &states, outputs: &outputs)
            case .membership(let change): apply(change, in: record.partition, states: &states, outputs: &outputs)
            case .fanOut(let fanOut): handle(fanOut, in: record.partition, states: &states, outputs: &outputs)
            }
        case .send(let result):
            outputs.input = ChangelogInput(.send, of: record)
            for status in result.statuses { encoder.status(status, to: &outputs) }
            if let rejection = result.deadLetter ?? result.firstRejection {
                reject(record, rejection, outputs: &outputs)
            }
            for routed in result.accepted {
                route(routed, from: record, colocated: sendIsColocated, states: &states, outputs: &outputs)
            }
            if let message = result.fanOut { fanOut(message, outputs: &outputs) }
        case .presence(let decoded):
            outputs.input = ChangelogInput(.presence, of: record)
            let time = EventTime.reported(record.createTime)
            switch decoded {
            case .success(let event):
                route(
                    RoutedInput(token: event.token, input: .presence(event.kind), time: time), from: record,
                    colocated: presenceIsColocated, states: &states, outputs: &outputs)
            case .failure(let rejection):
                encoder.status(
                    AddressedStatus(
                        token: rejection.tokens.first, status: .rejected(messageID: nil, rejection, at: time)),
                    to: &outputs)
                reject(record, rejection, outputs: &outputs)
            }
        case .subscriptions(let decoded):
            outputs.input = ChangelogInput(.subscriptions, of: record)
            admitSubscription(decoded, of: record, outputs: &outputs)
        case .unexpected:
            outputs.input = nil
            logger.warning("ignoring a record of unexpected topic", metadata: ["topic": "\(record.topic)"])
        }
    }

    /// The state partition that owns a device.
    func statePartition(of token: String) -> Int32 {
        Murmur2Partitioner.partition(of: token.utf8, partitions: statePartitions)
    }

    /// The state partition that owns a topic's members.
    func statePartition(ofTopic topic: String) -> Int32 {
        Murmur2Partitioner.partition(of: topic.utf8, partitions: statePartitions)
    }

    /// Handles `routed` here when its record sits on the partition that owns its device (in a
    /// `colocated` topic), which this worker holds, and nothing for the device is on its way
    /// there through the repartition topic; else forwards it there, behind what is on its way.
    func route(
        _ routed: RoutedInput, from record: some InputRecord, colocated: Bool, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        let partition = statePartition(of: routed.token)
        if colocated, record.partition == partition, states.owns(partition),
            !states.forwards.contains(routed.token, in: partition)
        {
            handle(routed, in: partition, states: &states, outputs: &outputs)
        } else {
            forward(
                routed, source: RepartitionCodec.source(of: record), to: partition, states: &states, outputs: &outputs)
        }
    }

    private func forward(
        _ routed: RoutedInput, source: String, to partition: Int32, states: inout DeviceStates,
        outputs: inout OutputRecords
    ) {
        repartition.record(routed, source: source, partition: partition, to: &outputs)
        if states.owns(partition) { states.forwards.forwarded(routed.token, to: partition, source: source) }
    }

    /// Applies `routed` to its device in `partition`, which this worker holds, and forgets idle
    /// devices as the input's sweep finds them.
    private func handle(
        _ routed: RoutedInput, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        applyToDevice(routed, in: partition, states: &states, outputs: &outputs)
        forgetIdle(in: partition, at: routed.time, states: &states, outputs: &outputs)
    }

    /// Applies `routed` to its device in `partition`, which this worker holds.
    func applyToDevice(
        _ routed: RoutedInput, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        let output = states.handle(routed, in: partition, rules: rules)
        for change in output.changes {
            changelog.record(change, token: routed.token, partition: partition, to: &outputs)
        }
        for entry in output.inbox {
            encoder.inbox(entry, token: routed.token, at: routed.time, to: &outputs)
        }
        for event in output.statuses {
            encoder.status(AddressedStatus(token: routed.token, status: .queue(event)), to: &outputs)
        }
    }

    /// Applies `change` to `partition`'s topic state and records it in the changelog: the one
    /// way the processor changes topic state, through the apply a restore uses too.
    func applyAndRecord(
        _ change: TopicChange, in partition: Int32, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        states.topics.apply(change, in: partition)
        changelog.record(change, partition: partition, to: &outputs)
    }

    /// Forgets idle devices of `partition`, as ``DeviceStates/forgetIdle(in:at:rules:)`` finds
    /// them: records their changes, and tells the owner of each topic a device leaves.
    func forgetIdle(
        in partition: Int32, at time: Int64, states: inout DeviceStates, outputs: inout OutputRecords
    ) {
        for (token, changes, topicChanges) in states.forgetIdle(in: partition, at: time, rules: rules) {
            for change in changes { changelog.record(change, token: token, partition: partition, to: &outputs) }
            for change in topicChanges {
                changelog.record(change, partition: partition, to: &outputs)
                guard case .deviceTopic(_, let topic, false) = change else { continue }
                let leave = MembershipChange(
                    topic: topic, tokens: [token], action: .unsubscribe, time: time, isForgetting: true)
                repartition.record(leave, toTopic: true, partition: statePartition(ofTopic: topic), to: &outputs)
            }
        }
    }

    /// Notes the rejected input for the log, and writes it to the dead letter topic when it
    /// could not be decoded. (Its `rejected` statuses are written by the caller.)
    func reject(_ record: some InputRecord, _ rejection: Rejection, outputs: inout OutputRecords) {
        outputs.tally.note(
            OutputTally.Note(
                source: record.position, reason: rejection.reason.rawValue, detail: rejection.detail,
                deadLettered: rejection.isUndecodable))
        if rejection.isUndecodable {
            encoder.deadLetter(record, error: rejection.description, limits: limits, to: &outputs)
        }
    }
}
