extension Webhook: CustomStringConvertible, CustomDebugStringConvertible {
    /// `Webhook(<address without credentials>, <n> secrets)`: all a log line may show of it,
    /// however it is printed (the lifecycle's debug lines print every service whole).
    public var description: String { "Webhook(\(redactedURL), \(secretCount) secrets)" }

    /// The same as ``description``: nothing of the address's credentials, even when reflected.
    public var debugDescription: String { description }
}
