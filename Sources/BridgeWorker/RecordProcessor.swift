import BridgeConfig
import DeviceQueues
import FCMTranslation
import Kafka
import Logging

/// Turns each input record into the records to produce, updating device state: the heart of
/// the worker, with no I/O of its own. Send and presence records are decoded here; inputs for
/// a device this partition does not own are forwarded to the repartition topic; inputs for an
/// owned device go through its queue.
@_spi(Benchmarks) public struct RecordProcessor: Sendable {
    let topics: BridgeConfiguration.Topics
    let rules: QueueRules
    let intake: SendIntake
    let outputs: OutputEncoder
    let repartition: RepartitionCodec
    let changelog: ChangelogCodec
    /// Partitions of the repartition and changelog topics: a device lives in
    /// murmur2(token) % statePartitions.
    let statePartitions: Int32
    /// Input topics partitioned like the state (same partition count), whose records keyed
    /// right may be handled where they land, without a trip through the repartition topic.
    let colocatedTopics: Set<String>
    let logger: Logger

    /// A processor for `configuration`'s topics and rules, with device state split
    /// `statePartitions` ways and the given inputs partitioned like the state.
    public init(configuration: BridgeConfiguration, statePartitions: Int32, colocatedTopics: Set<String>, logger: Logger) {
        topics = configuration.topics
        rules = configuration.queue
        intake = SendIntake(translator: APNsTranslator(bundleID: configuration.bundleID, payloadLimit: configuration.payloadLimit))
        outputs = OutputEncoder(inboxTopic: topics.inbox, statusTopic: topics.status, deadLetterTopic: topics.deadLetters)
        repartition = RepartitionCodec(topic: configuration.repartitionTopic)
        changelog = ChangelogCodec(topic: configuration.changelogTopic)
        self.statePartitions = statePartitions
        self.colocatedTopics = colocatedTopics
        self.logger = logger
    }

    /// Handles one record, appending what to produce to `produced`.
    public func process(_ record: ConsumerRecord, states: inout DeviceStates, produced: inout [ProducerRecord]) {
        let time = record.timestamp?.milliseconds ?? 0
        switch record.topic {
        case repartition.topic:
            do {
                let routed = try repartition.input(of: record)
                handle(routed, in: record.partition, states: &states, produced: &produced)
            } catch {
                deadLetter(record, error: error.description, produced: &produced)
            }
        case topics.send:
            let result = intake.admit(buffer: record.value, partition: record.partition, offset: record.offset, time: time)
            for status in result.statuses { produced.append(outputs.status(status)) }
            if let rejection = result.deadLetter { deadLetter(record, error: rejection.description, produced: &produced) }
            for routed in result.accepted { route(routed, from: record, states: &states, produced: &produced) }
        case topics.presence:
            switch PresenceEvent.decode(record.value?.readableBytesView) {
            case .success(let event):
                route(RoutedInput(token: event.token, input: .presence(event.kind), time: time), from: record, states: &states, produced: &produced)
            case .failure(let rejection):
                produced.append(outputs.status(AddressedStatus(token: rejection.tokens.first, status: .rejected(messageID: nil, rejection, at: time))))
                if rejection.isUndecodable { deadLetter(record, error: rejection.description, produced: &produced) }
            }
        default:
            logger.warning("ignoring a record of unexpected topic", metadata: ["topic": "\(record.topic)"])
        }
    }

    /// The state partition that owns a device.
    func statePartition(of token: String) -> Int32 {
        Murmur2Partitioner.partition(of: token.utf8, partitions: statePartitions)
    }

    private func route(_ routed: RoutedInput, from record: ConsumerRecord, states: inout DeviceStates, produced: inout [ProducerRecord]) {
        let partition = statePartition(of: routed.token)
        if colocatedTopics.contains(record.topic), record.partition == partition, states.owns(partition) {
            handle(routed, in: partition, states: &states, produced: &produced)
        } else {
            produced.append(repartition.record(routed, partition: partition))
        }
    }

    private func handle(_ routed: RoutedInput, in partition: Int32, states: inout DeviceStates, produced: inout [ProducerRecord]) {
        guard states.owns(partition) else {
            // Only reachable if the assignor split a co-partitioned set; forwarding keeps it correct.
            logger.error("state partition not owned; forwarding", metadata: ["partition": "\(partition)"])
            produced.append(repartition.record(routed, partition: partition))
            return
        }
        let output = states.handle(routed, in: partition, rules: rules)
        for change in output.changes {
            produced.append(changelog.record(change, token: routed.token, partition: partition))
        }
        // One copy of the key for every inbox and status record about the device.
        let key = Array(routed.token.utf8)
        for entry in output.inbox {
            produced.append(outputs.inbox(entry, token: routed.token, key: key, at: routed.time))
        }
        for event in output.statuses {
            produced.append(outputs.status(AddressedStatus(token: routed.token, status: .queue(event)), key: key))
        }
    }

    private func deadLetter(_ record: ConsumerRecord, error: String, produced: inout [ProducerRecord]) {
        logger.notice("dead letter", metadata: ["source": "\(record.topicPartition)@\(record.offset)", "error": "\(error)"])
        produced.append(outputs.deadLetter(record, error: error))
    }
}
