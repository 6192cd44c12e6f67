import ArgumentParser
import BridgeConfig
import BridgeCore
import BridgeStore
@_spi(Benchmarks) import BridgeWorker
import Foundation
import Kafka
import Logging
import NIOCore

/// Changelog records replayed into device state per second, beside the baseline of the same run:
/// a plain read of the same changelog partitions to their end with the same Kafka layer, in place.
///
/// The changelog is the worker's own: offline devices (with `--online`, connected ones) receive
/// messages (and, with `--topics-per-device`, join topics) through the worker's `RecordProcessor`,
/// and the changelog records it makes (a status record per device, two once connected, one per waiting message with
/// its inbox record, or per id awaiting `ack` once dispatched, two per topic membership: the
/// device's and the topic's) are produced to a fresh topic. Then, for each run, the
/// partitions are read to their end (baseline) and restored by the worker's `ChangelogRestorer`.
@main
struct RestoreBenchmark: AsyncParsableCommand {
    @Option(help: "Kafka bootstrap servers.")
    var bootstrapServers: String = ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "127.0.0.1:9092"

    @Option(help: "Devices, offline unless --online.")
    var devices = 20_000

    @Option(help: "Messages sent to each device: waiting, or with --online dispatched and awaiting ack.")
    var messagesPerDevice = 10

    @Flag(
        help:
            "Connect the devices before the sends: each message is dispatched at once and its id awaits ack (up to 1,000 a device)."
    )
    var online = false

    @Option(help: "Topics each device joins (each topic's members and each device's own topics).")
    var topicsPerDevice = 0

    @Option(help: "Changelog partitions.")
    var partitions: Int32 = 4

    @Option(help: "Runs; the best of each side is reported.")
    var runs = 3

    @Option(
        help:
            "A state directory (emptied first): also restore into its stores with no local state, then restart from them."
    )
    var stateDirectory: String?

    func run() async throws {
        var logger = Logger(label: "restore-benchmark")
        logger.logLevel = .warning
        let kafka = KafkaConfiguration(bootstrapServers: bootstrapServers, clientID: "restore-benchmark")
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: bootstrapServers))
        configuration.kafka.groupID = "restore-benchmark-\(ProcessInfo.processInfo.processIdentifier)"
        let topic = configuration.changelogTopic
        let admin = try KafkaAdmin(configuration: kafka, logger: logger)
        try await admin.createTopics([NewTopic(name: topic, partitions: partitions)])
        await admin.close()

        let records = try changelog(configuration, logger: logger)
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logger)
        for chunk in stride(from: 0, to: records.count, by: 10_000) {
            try (try await producer.send(Array(records[chunk..<min(chunk + 10_000, records.count)]))).throwFirstError()
        }
        try await producer.close()
        print(
            "librdkafka \(Librdkafka.version): \(records.count) changelog records (\(devices) \(online ? "online" : "offline") devices x \(messagesPerDevice) messages, x \(topicsPerDevice) topics), \(partitions) partitions, best of \(runs) runs"
        )

        let headerBytes = records.reduce(0) { sum, record in
            sum
                + record.headers.reduce(0) {
                    $0
                        + ($1.key == ChangelogInput.headerNameText
                            ? $1.key.utf8.count + ($1.value?.readableBytes ?? 0) : 0)
                }
        }
        print(
            String(
                format: "the input header: %.1f bytes of name and value per changelog record",
                Double(headerBytes) / Double(records.count)))
        // Every input the changelog names is committed: the restore replays all of it.
        let committed = CommittedInputs(
            Dictionary(
                uniqueKeysWithValues: [ChangelogInput.Topic.send, .repartition].flatMap { topic in
                    (0..<partitions).map { (CommittedInputs.Input(topic, partition: $0), Int64.max) }
                }))

        var consumer = KafkaConsumerConfiguration(kafka: kafka, groupID: nil)
        consumer.fetchWaitMax = .milliseconds(10)
        consumer.isolationLevel = .readCommitted
        let restorer = ChangelogRestorer(
            consumerConfiguration: consumer, changelogTopic: topic, repartitionTopic: topic + ".repartition",
            logger: logger)
        var best = (read: 0.0, restore: 0.0)
        for run in 1...runs {
            let read = try await plainRead(topic, consumer, logger: logger)
            var states = DeviceStates()
            let started = ContinuousClock.now
            let processorTime = clock()
            try await restorer.restore(Array(0..<partitions), committed: committed, into: &states)
            let cpuPerRecord = Double(clock() - processorTime) / Double(CLOCKS_PER_SEC) / Double(records.count) * 1e6
            let restore = Double(records.count) / (ContinuousClock.now - started).seconds
            guard states.deviceCount == devices, states.topics.membershipCount == devices * topicsPerDevice else {
                throw ValidationError(
                    "restored \(states.deviceCount) devices and \(states.topics.membershipCount) memberships, not \(devices) and \(devices * topicsPerDevice)"
                )
            }
            print(
                String(
                    format:
                        "run %d: plain read %.0f records/s, restore %.0f records/s (%.2f µs of this process's CPU per record)",
                    run, read, restore, cpuPerRecord))
            best = (max(best.read, read), max(best.restore, restore))
        }
        print("")
        print("| path | records/s |")
        print("|---|---|")
        print(String(format: "| plain read of the changelog (baseline) | %.0f |", best.read))
        print(String(format: "| restore into device state (target >= 500,000) | %.0f |", best.restore))
        print(String(format: "| ratio restore / plain read | %.2f |", best.restore / best.read))
        if let stateDirectory {
            try await restoreThroughStores(
                stateDirectory, topic: topic, restorer: restorer, committed: committed, records: records.count,
                read: best.read)
        }
    }

    /// A first restore with an empty state directory (a new machine: the whole changelog, written
    /// to the stores), twice: the stores written a poll at a time, then in the restore's
    /// transactions; then restarts from the stores (nothing written since); each timed.
    func restoreThroughStores(
        _ path: String, topic: String, restorer: ChangelogRestorer, committed: CommittedInputs, records: Int,
        read: Double
    ) async throws {
        let open = {
            try StateDirectory(
                path: path, group: "restore-benchmark", topic: topic, changelogID: nil, cleanupDelay: .seconds(600))
        }
        var first = Duration.zero
        var states = DeviceStates()
        for writtenAt in [1, StoreWritePacing().records] {
            try? FileManager.default.removeItem(atPath: path)
            var stores: StateDirectory? = try open()
            stores?.writePacing.records = writtenAt
            states = DeviceStates()
            let started = ContinuousClock.now
            try await restorer.restore(Array(0..<partitions), committed: committed, into: &states, stores: &stores)
            if writtenAt == 1 {
                print(
                    String(
                        format: "| restore with no local state, writing the stores a poll at a time | %.0f |",
                        Double(records) / (ContinuousClock.now - started).seconds))
            }
            first = ContinuousClock.now - started
        }
        var restart = Duration.seconds(3600)
        for _ in 1...runs {
            var stores: StateDirectory? = try open()
            var restored = DeviceStates()
            let started = ContinuousClock.now
            try await restorer.restore(Array(0..<partitions), committed: committed, into: &restored, stores: &stores)
            restart = min(restart, ContinuousClock.now - started)
            guard restored == states else {
                throw ValidationError("the stores restored other state than the changelog")
            }
        }
        let bytes = try FileManager.default.contentsOfDirectory(atPath: path).reduce(0) { sum, file in
            sum + ((try? FileManager.default.attributesOfItem(atPath: path + "/" + file)[.size] as? Int) ?? 0)
        }
        print(
            String(
                format: "| restore with no local state, writing the stores (target >= 500,000) | %.0f |",
                Double(records) / first.seconds))
        print(
            String(
                format: "| ratio restore writing the stores / plain read | %.2f |",
                Double(records) / first.seconds / read))
        print(String(format: "| restart from the stores (best of %d): seconds | %.2f |", runs, restart.seconds))
        print(String(format: "| stores on disk: bytes per changelog record | %.0f |", Double(bytes) / Double(records)))
    }

    /// The changelog records the worker writes for devices receiving messages, offline or connected.
    func changelog(_ configuration: BridgeConfiguration, logger: Logger) throws -> [ProducerRecord] {
        let send = configuration.topics.send
        let presence = configuration.topics.presence
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: partitions, colocatedTopics: [send, presence],
            logger: logger)
        var states = DeviceStates()
        for partition in 0..<partitions { states.adopt(partition) }
        var produced = OutputRecords()
        var offset: Int64 = 0
        let tokens = (0..<devices).map {
            "fMEP0vJqS0:APA91bH" + String(repeating: "x", count: 140) + String($0, radix: 16)
        }
        for token in tokens where online {
            let record = InMemoryRecord(
                topic: presence, partition: Murmur2Partitioner.partition(of: token.utf8, partitions: partitions),
                offset: offset, key: ByteBuffer(string: token),
                value: ByteBuffer(string: #"{"token":"\#(token)","event":"connect"}"#),
                createTime: 1_700_000_000_000 + offset)
            try processor.process(record, states: &states, outputs: &produced)
            offset += 1
        }
        for round in 0..<messagesPerDevice {
            for device in 0..<devices {
                let token = tokens[device]
                let value =
                    #"{"to":"\#(token)","notification":{"title":"New message \#(round)","body":"Are we still on for lunch tomorrow at noon?","sound":"default","badge":"3"},"data":{"conversation_id":"c-\#(device)","sender":"alice"}}"#
                let record = InMemoryRecord(
                    topic: send, partition: Murmur2Partitioner.partition(of: token.utf8, partitions: partitions),
                    offset: offset, key: ByteBuffer(string: token), value: ByteBuffer(string: value),
                    createTime: 1_700_000_000_000 + offset
                )
                try processor.process(record, states: &states, outputs: &produced)
                offset += 1
            }
        }
        // Subscriptions take two hops through the repartition topic: fed back until none is left.
        var pending: [InMemoryRecord] = []
        for topic in 0..<topicsPerDevice {
            for start in stride(from: 0, to: devices, by: 1000) {
                let batch = tokens[start..<min(start + 1000, devices)].map { "\"\($0)\"" }.joined(separator: ",")
                pending.append(
                    InMemoryRecord(
                        topic: configuration.topics.subscriptions, partition: 0, offset: offset,
                        value: ByteBuffer(
                            string: #"{"action":"subscribe","topic":"topic-\#(topic)","tokens":[\#(batch)]}"#),
                        createTime: 1_700_000_000_000 + offset))
                offset += 1
            }
        }
        var changelog = produced.copies.filter { $0.topic == .changelog }
        // Connected, each device has two statuses and an id awaiting ack per message (up to the
        // window): fewer is a connect or a send refused, and not what the run claims to measure.
        if online, messagesPerDevice <= 1_000, changelog.count != devices * (2 + messagesPerDevice) {
            throw ValidationError("\(changelog.count) changelog records, not \(devices * (2 + messagesPerDevice))")
        }
        var next = 0
        while next < pending.count {
            var outputs = OutputRecords()
            try processor.process(pending[next], states: &states, outputs: &outputs)
            next += 1
            for copy in outputs.copies {
                if copy.topic == .changelog { changelog.append(copy) }
                guard copy.topic == .repartition else { continue }
                pending.append(
                    InMemoryRecord(
                        topic: configuration.repartitionTopic, partition: copy.partition ?? 0, offset: offset,
                        key: copy.key.map { ByteBuffer(bytes: $0) }, value: copy.value.map { ByteBuffer(bytes: $0) },
                        createTime: copy.timestamp,
                        headers: Dictionary(copy.headers.map { ($0.name, String(decoding: $0.value, as: UTF8.self)) }) {
                            first, _ in first
                        }))
                offset += 1
            }
        }
        return changelog.map { copy in
            ProducerRecord(
                topic: configuration.changelogTopic,
                partition: copy.partition.map(ProducerRecord.Partition.explicit) ?? .byKey,
                key: copy.key.map { ByteBuffer(bytes: $0) }, value: copy.value.map { ByteBuffer(bytes: $0) },
                headers: copy.headers.map { KafkaHeader(key: $0.name, value: ByteBuffer(bytes: $0.value)) },
                timestamp: copy.timestamp
            )
        }
    }

    /// Reads every partition of `topic` to its end; records per second.
    func plainRead(_ topic: String, _ configuration: KafkaConsumerConfiguration, logger: Logger) async throws -> Double
    {
        var configuration = configuration
        configuration.reportsEndOfPartition = true
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        let all = (0..<partitions).map { TopicPartition(topic, $0) }
        try await consumer.assign(all.map { TopicPartitionOffset($0, offset: KafkaOffset.beginning) })
        let started = ContinuousClock.now
        var remaining = Set(all)
        var count = 0
        while !remaining.isEmpty {
            // Read in place, as the restore reads: the cheapest read the Kafka layer has.
            let batch = try await consumer.pollInPlace()
            batch.readRecords { _ in count += 1 }
            for end in batch.endsOfPartition { remaining.remove(end.topicPartition) }
        }
        let rate = Double(count) / (ContinuousClock.now - started).seconds
        try await consumer.close()
        return rate
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
