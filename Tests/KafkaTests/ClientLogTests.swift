import Kafka
import Testing

@Suite("What librdkafka's clients log")
struct ClientLogTests {
    @Test(
        "an unreachable broker's failures are logged once each, as warnings (librdkafka retries them), all brokers down too"
    )
    func unreachableBrokerLoggedOnce() async throws {
        let logs = CapturedLogs()
        // Port 9 (discard) on loopback: nothing listens, every connection is refused at once.
        let kafka = KafkaConfiguration(
            bootstrapServers: "127.0.0.1:9", clientID: "log-test",
            properties: ["reconnect.backoff.ms": "100", "reconnect.backoff.max.ms": "200"])
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(kafka: kafka), logger: logs.logger)
        try await Task.sleep(for: .seconds(2))
        try? await producer.close(timeout: .milliseconds(100))
        let refused = logs.lines.filter { $0.contains("Connection refused") }
        #expect(refused.count >= 2, "\(logs.lines)")
        // Each from the error callback, with its code, at warning: the log callback's own line of
        // the same failure (at error) is not logged as well.
        #expect(refused.allSatisfy { $0.hasPrefix("warning librdkafka: _TRANSPORT") }, "\(refused)")
        #expect(logs.lines.contains { $0.hasPrefix("warning ") && $0.contains("brokers are down") }, "\(logs.lines)")
    }
}
