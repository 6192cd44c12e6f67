import DeviceQueues

/// An input for one device's queue, after routing: a message to send or a presence event.
public enum DeviceInput: Sendable, Hashable {
    /// A message for the device's queue.
    case send(QueuedMessage)
    /// The device connected, disconnected or acknowledged messages.
    case presence(PresenceEvent.Kind)
}

/// An input for a device, with its event time.
public struct RoutedInput: Sendable, Hashable {
    /// The device.
    public var token: String
    /// What happened.
    public var input: DeviceInput
    /// The event time (the triggering record's CreateTime), in milliseconds.
    public var time: Int64
}
