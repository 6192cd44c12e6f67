import DeviceQueues

/// An input for one device's queue, after routing: a message to send or a presence event.
enum DeviceInput: Sendable, Hashable {
    case send(QueuedMessage)
    case presence(PresenceEvent.Kind)
}

/// An input for a device, with its event time.
struct RoutedInput: Sendable, Hashable {
    /// The device.
    var token: String
    var input: DeviceInput
    /// The event time (the triggering record's CreateTime), in milliseconds.
    var time: Int64
}
