import ArgumentParser
import Foundation
import Kafka
import Logging
import NIOCore

/// Produces then consumes N messages through the Swift Kafka layer and, in the same run on the
/// same broker, through raw librdkafka (its `rdkafka_performance` tool, built from the same
/// source), and prints msgs/s of each and their ratio.
///
/// Both sides use the same settings and the same librdkafka calls (`rd_kafka_produceva`, and a
/// group consumer's `rd_kafka_consume_batch_queue` with batches of 10,000), and measure the same
/// span: a producer from its first send to its last delivery report, a consumer from its first
/// record to its last.
@main
struct KafkaBenchmark: AsyncParsableCommand {
    @Option(help: "Kafka bootstrap servers.")
    var bootstrapServers: String = ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "127.0.0.1:9092"

    @Option(help: "Messages to produce and consume.")
    var messages: Int = 1_000_000

    @Option(help: "Message size in bytes.")
    var size: Int = 300

    @Option(help: "Path of librdkafka's rdkafka_performance, the raw baseline.")
    var baseline: String

    @Option(help: "Runs of each side; the best of each is reported.")
    var runs: Int = 3

    /// Producer settings both sides share.
    static let producerProperties = ["linger.ms": "5", "enable.idempotence": "true", "partitioner": "murmur2_random"]
    /// Consumer settings both sides share: a group member reading from the beginning.
    static let consumerProperties = ["fetch.wait.max.ms": "10", "auto.offset.reset": "earliest"]

    func run() async throws {
        var logger = Logger(label: "kafka-benchmark")
        logger.logLevel = .warning
        let kafka = KafkaConfiguration(bootstrapServers: bootstrapServers, clientID: "kafka-benchmark")
        print("librdkafka \(Librdkafka.version), \(messages) messages of \(size) bytes, best of \(runs) runs")

        var results: [String: (swift: Double, raw: Double)] = [:]
        for run in 1...runs {
            let id = "\(ProcessInfo.processInfo.processIdentifier)-\(run)"
            let admin = try KafkaAdmin(configuration: kafka, logger: logger)
            try await admin.createTopics([
                NewTopic(name: "bench.swift.\(id)", partitions: 1), NewTopic(name: "bench.raw.\(id)", partitions: 1),
            ])
            await admin.close()

            let rawProduce = try rawPerformance(
                ["-P", "-t", "bench.raw.\(id)", "-p", "0", "-s", "\(size)", "-c", "\(messages)"]
                    + Self.producerProperties.flatMap { ["-X", "\($0.key)=\($0.value)"] },
                pattern: #"delivered .* in \d+ms: (\d+) msgs/s"#)
            let swiftProduce = try await produce(topic: "bench.swift.\(id)", kafka: kafka, logger: logger)
            let rawConsume = try rawPerformance(
                ["-G", "bench.raw.\(id)", "-t", "bench.raw.\(id)", "-c", "\(messages)", "-B", "10000"]
                    + Self.consumerProperties.flatMap { ["-X", "\($0.key)=\($0.value)"] },
                pattern: #"consumed in \d+ms: (\d+) msgs/s"#)
            let swiftConsume = try await consume(topic: "bench.swift.\(id)", kafka: kafka, logger: logger)
            print(
                String(
                    format: "run %d: produce swift %.0f raw %.0f msgs/s; consume swift %.0f raw %.0f msgs/s",
                    run, swiftProduce, rawProduce, swiftConsume, rawConsume))
            for (name, swift, raw) in [("produce", swiftProduce, rawProduce), ("consume", swiftConsume, rawConsume)] {
                let best = results[name] ?? (0, 0)
                results[name] = (max(best.swift, swift), max(best.raw, raw))
            }
        }
        print("")
        print("| path | Swift layer msgs/s | raw librdkafka msgs/s | ratio |")
        print("|---|---|---|---|")
        for name in ["produce", "consume"] {
            guard let result = results[name] else { continue }
            print(
                String(format: "| %@ | %.0f | %.0f | %.2f |", name, result.swift, result.raw, result.swift / result.raw)
            )
        }
    }

    /// The Swift layer's producer: batches of 10,000 records, several batches in flight.
    private func produce(topic: String, kafka: KafkaConfiguration, logger: Logger) async throws -> Double {
        var configuration = KafkaProducerConfiguration(kafka: kafka)
        configuration.kafka.properties = Self.producerProperties
        let producer = try KafkaProducer(configuration: configuration, logger: logger)
        let payload = ByteBuffer(repeating: 0x61, count: size)
        let batchSize = 10_000
        let start = ContinuousClock.now
        var inFlight: [PendingDeliveries] = []
        var sent = 0
        var failed = 0
        while sent < messages {
            let count = min(batchSize, messages - sent)
            let batch = [ProducerRecord](
                repeating: ProducerRecord(topic: topic, partition: .explicit(0), value: payload), count: count)
            inFlight.append(try await producer.enqueue(batch))
            sent += count
            if inFlight.count > 8 { failed += await inFlight.removeFirst().reports().count { $0.error != nil } }
        }
        for pending in inFlight { failed += await pending.reports().count { $0.error != nil } }
        let elapsed = ContinuousClock.now - start
        try await producer.close()
        guard failed == 0 else { throw ValidationError("\(failed) messages failed") }
        return Double(messages) / elapsed.seconds
    }

    /// The Swift layer's consumer: a group member's batch polls, like `rdkafka_performance -G -B`.
    private func consume(topic: String, kafka: KafkaConfiguration, logger: Logger) async throws -> Double {
        var configuration = KafkaConsumerConfiguration(kafka: kafka, groupID: topic)
        configuration.kafka.properties = Self.consumerProperties
        let consumer = try KafkaConsumer(configuration: configuration, logger: logger)
        try consumer.subscribe([topic])
        var received = 0
        var bytes = 0
        var start: ContinuousClock.Instant?
        while received < messages {
            for case .record(let record) in try await consumer.poll(maxRecords: 10_000) {
                if start == nil { start = .now }
                received += 1
                bytes += record.value?.readableBytes ?? 0
            }
        }
        let elapsed = ContinuousClock.now - (start ?? .now)
        try await consumer.close()
        guard bytes == messages * size else {
            throw ValidationError("read \(bytes) bytes, expected \(messages * size)")
        }
        return Double(messages) / elapsed.seconds
    }

    /// Runs rdkafka_performance and returns the msgs/s its summary line reports.
    private func rawPerformance(_ arguments: [String], pattern: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: baseline)
        process.arguments = ["-b", bootstrapServers, "-q"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let regex = try NSRegularExpression(pattern: pattern)
        guard let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text), let rate = Double(text[range])
        else {
            throw ValidationError("rdkafka_performance printed no rate:\n\(text)")
        }
        return rate
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
