import BridgeConfig
import Testing

@testable import BridgeWorker
@testable import Kafka

/// The worker's producer settings, from the YAML's fields (no broker).
@Suite("Worker producer")
struct WorkerProducerTests {
    func configuration(
        _ delivery: BridgeConfiguration.Delivery, commitIntervalMilliseconds: Int = 100,
        producerProperties: [String: String] = [:]
    ) -> BridgeConfiguration {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "127.0.0.1:9092"))
        configuration.kafka.groupID = "g"
        configuration.delivery = delivery
        configuration.commitIntervalMilliseconds = commitIntervalMilliseconds
        configuration.kafka.producerProperties = producerProperties
        return configuration
    }

    @Test(
        "exactly once lingers up to the commit interval, at most 100 ms; at least once 5 ms",
        arguments: [
            (BridgeConfiguration.Delivery.exactlyOnce, 100, "100"),
            (.exactlyOnce, 20, "20"),
            (.exactlyOnce, 5_000, "100"),
            (.atLeastOnce, 100, "5"),
            (.atLeastOnce, 5_000, "5"),
        ])
    func linger(delivery: BridgeConfiguration.Delivery, commitInterval: Int, expected: String) {
        let producer = configuration(delivery, commitIntervalMilliseconds: commitInterval).workerProducer(
            topicRecordLimit: nil)
        #expect(producer.librdkafkaProperties["linger.ms"] == expected)
    }

    @Test(
        "a transaction times out 10 s (Kafka Streams' exactly-once default) after the commit interval",
        arguments: [(100, "10100"), (1, "10001"), (10_000, "20000")])
    func transactionTimeout(commitInterval: Int, expected: String) {
        let producer = configuration(.exactlyOnce, commitIntervalMilliseconds: commitInterval).workerProducer(
            topicRecordLimit: nil)
        #expect(producer.librdkafkaProperties["transaction.timeout.ms"] == expected)
    }

    @Test("producer_properties win over the worker's settings")
    func propertiesWin() {
        let properties = ["linger.ms": "7", "delivery.report.only.error": "false"]
        let producer = configuration(.exactlyOnce, producerProperties: properties).workerProducer(topicRecordLimit: nil)
        #expect(producer.librdkafkaProperties["linger.ms"] == "7")
        #expect(producer.librdkafkaProperties["delivery.report.only.error"] == "false")
    }

    @Test(
        "batches fit a topic that takes smaller records than librdkafka's default batch.size",
        arguments: [
            (Int?.none, String?.none), (2_000_000, nil), (1_000_000, nil), (65_536, "65536"),
        ])
    func batchSize(topicRecordLimit: Int?, expected: String?) {
        let producer = configuration(.exactlyOnce).workerProducer(topicRecordLimit: topicRecordLimit)
        #expect(producer.librdkafkaProperties["batch.size"] == expected)
    }

    @Test("exactly once is transactional and reports only failed deliveries; at least once gets every report")
    func transactions() {
        let exactlyOnce = configuration(.exactlyOnce).workerProducer(topicRecordLimit: nil).librdkafkaProperties
        #expect(exactlyOnce["transactional.id"]?.hasPrefix("g-") == true)
        #expect(exactlyOnce["delivery.report.only.error"] == "true")

        let atLeastOnce = configuration(.atLeastOnce).workerProducer(topicRecordLimit: nil).librdkafkaProperties
        #expect(atLeastOnce["transactional.id"] == nil)
        #expect(atLeastOnce["delivery.report.only.error"] == nil)
    }

    @Test(
        "an instance id makes the worker's consumer a static member and names its transactions, unless a transactional id is set"
    )
    func stableIdentity() {
        var configuration = configuration(.exactlyOnce)
        #expect(configuration.workerConsumer.librdkafkaProperties["group.instance.id"] == nil)
        configuration.kafka.groupInstanceID = "pod-0"
        #expect(configuration.workerConsumer.librdkafkaProperties["group.instance.id"] == "pod-0")
        let restarted = configuration.workerProducer(topicRecordLimit: nil).librdkafkaProperties["transactional.id"]
        #expect(restarted == "g-pod-0", "a restart under the same identity fences its predecessor's transaction")
        configuration.kafka.transactionalID = "chosen"
        #expect(
            configuration.workerProducer(topicRecordLimit: nil).librdkafkaProperties["transactional.id"] == "chosen")
    }
}
