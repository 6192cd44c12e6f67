import Kafka
import Testing

@Suite("Admin", .needsBroker, .timeLimit(.minutes(2)))
struct AdminTests {
    @Test("topic configs set at creation are described back; an unknown topic is absent")
    func describeConfigs() async throws {
        let admin = try KafkaAdmin(configuration: try TestCluster.kafka(), logger: TestCluster.logger)
        let name = TestCluster.uniqueName("configs")
        try await admin.createTopics([NewTopic(name: name, partitions: 1, configs: [
            "cleanup.policy": "compact", "message.timestamp.type": "LogAppendTime",
        ])], ignoreExisting: false)
        let configs = try await admin.topicConfigs([name])
        #expect(configs[name]?["cleanup.policy"] == "compact", "\(configs)")
        #expect(configs[name]?["message.timestamp.type"] == "LogAppendTime", "\(configs)")
        let unknown = TestCluster.uniqueName("never-created")
        #expect(try await admin.topicConfigs([unknown, name]).keys.sorted() == [name])
        await admin.close()
    }
}
