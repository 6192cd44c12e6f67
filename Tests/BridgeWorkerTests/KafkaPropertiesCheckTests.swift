import BridgeConfig
import Foundation
import Testing

@testable import BridgeWorker

/// Kafka properties librdkafka refuses are configuration errors, found before any client exists.
@Suite("Kafka properties check")
struct KafkaPropertiesCheckTests {
    static func configuration(
        properties: [String: String] = [:], consumer: [String: String] = [:], producer: [String: String] = [:]
    ) -> BridgeConfiguration {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "127.0.0.1:9"))
        configuration.kafka.properties = properties
        configuration.kafka.consumerProperties = consumer
        configuration.kafka.producerProperties = producer
        return configuration
    }

    static func error(of configuration: BridgeConfiguration) -> ConfigurationError? {
        configuration.kafkaPropertyProblems.first
    }

    @Test(
        "an unknown name or an invalid value names the section and the property, with the value unless secret",
        arguments: [
            (
                configuration(properties: ["socket.timeout.ms": "soon"]), "kafka.properties.socket.timeout.ms",
                "\"soon\""
            ),
            (configuration(consumer: ["fetch.wait.max": "10"]), "kafka.consumer_properties.fetch.wait.max", "\"10\""),
            (
                configuration(producer: ["linger.ms": "-4", "acks": "all"]), "kafka.producer_properties.linger.ms",
                "\"-4\""
            ),
            (
                configuration(properties: ["my.secret.thing": "s3cr3t"]), "kafka.properties.my.secret.thing",
                "\"[redacted]\""
            ),
            (configuration(properties: ["sasl.password": ""]), nil, nil),
            (configuration(properties: ["client.rack": "eu-1a"], producer: ["linger.ms": "5"]), nil, nil),
        ])
    func refused(configuration: BridgeConfiguration, field: String?, shown: String?) {
        let error = Self.error(of: configuration)
        #expect(error?.field == field)
        if let shown { #expect(error?.problem.contains(shown) == true, "\(String(describing: error))") }
        #expect(error?.problem.contains("s3cr3t") != true)
    }

    @Test("every refused property is its own problem, in section and name order")
    func everyProblem() {
        let configuration = Self.configuration(
            properties: ["socket.timeout.ms": "soon", "acks": "all", "bogus.one": "1"],
            producer: ["linger.ms": "-4"])
        #expect(
            configuration.kafkaPropertyProblems.map(\.field) == [
                "kafka.properties.bogus.one", "kafka.properties.socket.timeout.ms",
                "kafka.producer_properties.linger.ms",
            ])
    }

    /// The README's configuration examples of Kafka security: each YAML block that configures `kafka`.
    static func readmeSecurityExamples() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        return readme.matches(of: /```yaml\n(kafka:\n(?:.*\n)*?)```/).map { String($0.1) }
    }

    @Test("the README's Kafka security examples load, and librdkafka takes each property (OIDC where built in)")
    func readmeExamples() throws {
        let examples = try Self.readmeSecurityExamples()
        #expect(examples.count >= 3)
        for example in examples {
            let configuration = try ConfigurationLoader.load(
                yaml: example, environment: ["FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS": "b:1"])
            #expect(!configuration.kafka.properties.isEmpty, "\(example)")
            // A librdkafka built without libcurl refuses OIDC, saying so; the README says to check.
            let problems = configuration.kafkaPropertyProblems.filter {
                !$0.problem.contains("not supported in this build")
            }
            #expect(problems.isEmpty, "\(example): \(problems)")
        }
    }
}
