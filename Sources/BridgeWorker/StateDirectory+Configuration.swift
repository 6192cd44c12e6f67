import BridgeConfig
import BridgeStore

extension StateDirectory {
    /// The state directory at `path` as `configuration` sets it up: its group and changelog,
    /// its cleanup delay and the pace of its writes (`state.write_interval_ms`). `changelogID` is
    /// the changelog topic's id, when the cluster gives one.
    init(_ path: String, configuration: BridgeConfiguration, changelogID: String?) throws(StateDirectoryError) {
        try self.init(
            path: path, group: configuration.kafka.groupID, topic: configuration.changelogTopic,
            changelogID: changelogID, cleanupDelay: .milliseconds(configuration.state.cleanupDelayMilliseconds),
            deviceRows: configuration.state.deviceRows)
        writePacing.age = .milliseconds(configuration.state.writeIntervalMilliseconds)
    }
}
