import Kafka
import Logging
import NIOCore

/// The status topic as an `AsyncSequence` of ``StatusEvent``s, read by a member of a consumer
/// group: each event's offset is committed only once the caller asks for the next one (it has
/// handled this one), so a caller that stops or crashes mid-event gets it again: at least once.
///
/// ```swift
/// let statuses = try StatusEvents(kafka: kafka, groupID: "app-server", logger: logger)
/// for try await event in statuses where event.type == .deletedMessages {
///     try await fullSync(event.token, because: event.messageIDs)   // handled: committed at the next
/// }
/// ```
/// Call ``close()`` when done: it commits what was handled and leaves the group.
public final class StatusEvents: AsyncSequence, Sendable {
    public typealias Element = StatusEvent

    private let consumer: KafkaConsumer
    private let logger: Logger
    private let polled: (@Sendable () -> Void)?
    private let commitsEachEvent: Bool

    /// Joins `groupID` reading `topic`; a new group starts at the topic's beginning. `polled` is
    /// called after each poll of the topic, also when it returned nothing: a sign of life. With
    /// `commitsEachEvent`, an event's offset is committed as soon as the next one is asked for,
    /// not before the next poll (a commit per event, for callers that handle few, slowly).
    public init(
        kafka: KafkaConfiguration, topic: String = "fcm.status", groupID: String, logger: Logger,
        polled: (@Sendable () -> Void)? = nil, commitsEachEvent: Bool = false
    ) throws {
        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: groupID)
        configuration.autoOffsetReset = .earliest
        configuration.isolationLevel = .readCommitted
        consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        try consumer.subscribe([topic])
        self.logger = logger
        self.polled = polled
        self.commitsEachEvent = commitsEachEvent
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(consumer: consumer, logger: logger, polled: polled, commitsEachEvent: commitsEachEvent)
    }

    /// Leaves the group. What was handled is committed already.
    public func close() async throws {
        try await consumer.close()
    }

    /// Reads events in polls and commits each poll's handled events before the next poll.
    public struct Iterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer
        let logger: Logger
        let polled: (@Sendable () -> Void)?
        let commitsEachEvent: Bool
        private var buffered: [ConsumerRecord] = []
        private var next = 0
        /// The offset after the last event returned: handled once the caller asks again.
        private var returned: TopicPartitionOffset?
        /// Handled and not yet committed: the next offset of each partition.
        private var handled: [TopicPartition: Int64] = [:]

        init(consumer: KafkaConsumer, logger: Logger, polled: (@Sendable () -> Void)?, commitsEachEvent: Bool) {
            self.consumer = consumer
            self.logger = logger
            self.polled = polled
            self.commitsEachEvent = commitsEachEvent
        }

        public mutating func next() async throws -> StatusEvent? {
            if let returned {
                handled[returned.topicPartition] = returned.offset
                self.returned = nil
                if commitsEachEvent { try await commitHandled() }
            }
            while true {
                try Task.checkCancellation()
                while next < buffered.count {
                    let record = buffered[next]
                    next += 1
                    guard let value = record.value, var event = try? StatusEvent.decode(Array(value.readableBytesView))
                    else {
                        // Not a status this library can read: nothing to hand over, nothing to wait for.
                        logger.warning(
                            "skipping an unreadable status record",
                            metadata: ["position": "\(record.topic)[\(record.partition)]@\(record.offset)"])
                        handled[record.topicPartition] = record.offset + 1
                        continue
                    }
                    event.position = StatusEvent.position(
                        topic: record.topic, partition: record.partition, offset: record.offset)
                    event.partition = record.partition
                    event.key = record.key.map { Array($0.readableBytesView) }
                    event.recordTimestamp = record.timestamp?.milliseconds
                    returned = TopicPartitionOffset(record.topicPartition, offset: record.offset + 1)
                    return event
                }
                try await commitHandled()
                buffered = []
                next = 0
                let events = try await consumer.poll(maxRecords: 500, timeout: .milliseconds(500))
                polled?()
                for event in events {
                    switch event {
                    case .record(let record):
                        buffered.append(record)
                    case .partitionsRevoked(let partitions, _):
                        // Handed to another member: it reads what was not committed.
                        let gone = Set(partitions)
                        buffered.removeAll { gone.contains($0.topicPartition) }
                        for partition in partitions { handled.removeValue(forKey: partition) }
                    case .partitionsAssigned, .endOfPartition:
                        break
                    }
                }
            }
        }

        private mutating func commitHandled() async throws {
            guard !handled.isEmpty else { return }
            try await consumer.commit(handled.map { TopicPartitionOffset($0.key, offset: $0.value) })
            handled.removeAll()
        }
    }
}
