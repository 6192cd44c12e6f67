import BridgeConfig
import DeviceQueues
import Foundation
import Testing

@Suite("Shipped configuration files")
struct ExampleConfigurationTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("config")

    @Test(
        "every shipped configuration loads",
        arguments: ["fcm-bridge.example.yaml", "demo.yaml", "benchmark.yaml", "local.yaml", "production.yaml"])
    func loads(file: String) throws {
        let configuration = try ConfigurationLoader.load(
            file: Self.directory.appendingPathComponent(file).path, environment: [:])
        #expect(!configuration.kafka.bootstrapServers.isEmpty)
    }

    @Test("the example's values are the defaults it claims")
    func exampleShowsDefaults() throws {
        let example = try ConfigurationLoader.load(
            file: Self.directory.appendingPathComponent("fcm-bridge.example.yaml").path, environment: [:])
        var defaults = BridgeConfiguration(kafka: .init(bootstrapServers: example.kafka.bootstrapServers))
        defaults.queue = QueueRules()
        #expect(example == defaults)
    }
}
