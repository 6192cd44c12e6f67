import DeviceQueues

/// An input for one device's queue, after routing: a message to send or a presence event.
public enum DeviceInput: Sendable, Hashable {
    /// A message for the device's queue.
    case send(QueuedMessage)
    /// The device connected, disconnected or acknowledged messages.
    case presence(PresenceEvent.Kind)
}

/// Devices joining or leaving one topic, with the subscription request's event time: on their
/// way from the request to their state partition, or from there to the topic's.
public struct MembershipChange: Sendable, Hashable {
    public var topic: String
    /// The devices, in the request's order.
    public var tokens: [String]
    public var action: SubscriptionRequest.Action
    public var time: Int64
    /// The devices were forgotten for inactivity: they leave the topic with no status, as nobody
    /// asked.
    public var isForgetting = false

    /// The change in parts whose tokens take at most `maxBytes` each (one token at least), in
    /// order: each part one record.
    func parts(maxBytes: Int) -> [MembershipChange] {
        var parts: [MembershipChange] = []
        var part = self
        part.tokens = []
        var bytes = 0
        for token in tokens {
            let size = token.utf8.count + 1
            if !part.tokens.isEmpty, bytes + size > maxBytes {
                parts.append(part)
                part.tokens = []
                bytes = 0
            }
            part.tokens.append(token)
            bytes += size
        }
        if !part.tokens.isEmpty { parts.append(part) }
        return parts
    }
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
