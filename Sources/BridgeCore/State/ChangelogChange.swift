import DeviceQueues

/// What one changelog record holds: a change to a device's queue, or to topic state.
public enum ChangelogChange: Sendable, Equatable {
    /// A change to the queue of `token`'s device.
    case device(token: String, StateChange)
    /// A change to topic state.
    case topic(TopicChange)
}
