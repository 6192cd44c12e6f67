import BridgeConfig
import BridgeStore
import TestSupport
import Testing

@testable import BridgeWorker

/// The worker's state directory takes its settings from the configuration's `state` section.
@Suite("A state directory from the configuration")
struct StateDirectoryConfigurationTests {
    @Test("state.write_interval_ms paces the writes and state.cleanup_delay_ms delays the deletes")
    func settingsReachTheDirectory() throws {
        let configuration = try ConfigurationLoader.load(
            yaml: "kafka: {bootstrap_servers: b:1}\nstate: {cleanup_delay_ms: 5000, write_interval_ms: 250}",
            environment: [:])
        let files = TemporaryDirectory()
        let directory = try StateDirectory(files.path, configuration: configuration, changelogID: nil)
        #expect(directory.writePacing.age == .milliseconds(250))
        #expect(directory.writePacing.records == 65_536)
        #expect(directory.cleanupDelay == .milliseconds(5000))
    }
}
