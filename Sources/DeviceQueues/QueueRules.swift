/// FCM's rules for messages waiting for an offline device, each configurable.
public struct QueueRules: Sendable, Hashable {
    /// Non-collapsible messages that may wait; the one that would exceed it is discarded together
    /// with every waiting message.
    public var maxPending = 100
    /// Distinct collapse keys that may wait; a new key evicts the oldest.
    public var maxCollapseKeys = 4
    /// Time to live of a message that gives none, in milliseconds (four weeks).
    public var defaultTimeToLive: Int64 = 2_419_200_000
    /// A device that connects after this long (milliseconds) without a presence event loses every
    /// waiting message (30 days).
    public var inactiveAfter: Int64 = 30 * 24 * 3600 * 1000
    /// Topics a device may be subscribed to (FCM's limit); a subscription past it is refused
    /// with `too_many_topics`.
    public var maxTopicsPerDevice = 2000
    /// How many dispatched ids a device remembers for `ack` (older ones are acknowledged silently).
    public var acknowledgementWindow = 1000

    /// The contract's defaults.
    public init() {}
}
