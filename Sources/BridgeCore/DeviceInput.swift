import DeviceQueues

/// An input for one device's queue, after routing: a message to send or a presence event.
public enum DeviceInput: Sendable, Hashable {
    /// A message for the device's queue.
    case send(QueuedMessage)
    /// The device connected, disconnected or acknowledged messages.
    case presence(PresenceEvent.Kind)
    /// The device is to join or leave a topic.
    case subscription(SubscriptionRequest.Action, topic: String)
}

/// A device joining or leaving a topic, on its way from the device's state partition to the
/// topic's, with the subscription request's event time.
public struct MembershipChange: Sendable, Hashable {
    public var topic: String
    public var token: String
    public var action: SubscriptionRequest.Action
    public var time: Int64
    /// The device was forgotten for inactivity: it leaves the topic with no status, as nobody
    /// asked.
    public var isForgetting = false
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
