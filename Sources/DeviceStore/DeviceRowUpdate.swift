import DeviceQueues

/// A device to write to its rows (``DeviceRows``): its head row and the rows of some or all of
/// its waiting messages.
public struct DeviceRowUpdate: Sendable {
    /// Which of a device's message rows an update writes.
    public enum Messages: Sendable, Hashable {
        /// The rows of these ids only: each written from the device's message of that id, or
        /// removed when it has none. Enough when the ids are those of every message that joined
        /// or left the queue since the rows were last written, as the changelog records name them.
        case named(Set<String>)
        /// Every waiting message's row written, and the rows of messages no longer waiting found
        /// (one scan of the device's rows) and removed.
        case all
    }

    /// The device's token.
    public var token: String
    /// The device; nil: forgotten, its head and message rows removed, whatever `messages` says.
    public var device: DeviceQueue?
    /// Which of its message rows to write.
    public var messages: Messages

    /// An update of `token`'s rows to `device` (nil: removed), writing the message rows `messages`.
    public init(token: String, device: DeviceQueue?, messages: Messages) {
        self.token = token
        self.device = device
        self.messages = messages
    }
}
