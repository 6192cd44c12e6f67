import Logging

/// A topic to create.
public struct NewTopic: Sendable, Hashable {
    /// The topic's name.
    public var name: String
    /// How many partitions it has.
    public var partitions: Int32
    /// How many copies of each partition (-1: the broker's default).
    public var replicationFactor: Int32
    /// Topic configs, such as `cleanup.policy=compact` or `retention.ms=-1`.
    public var configs: [String: String]

    /// Describes a topic to create.
    public init(name: String, partitions: Int32, replicationFactor: Int32 = -1, configs: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.configs = configs
    }
}

/// A topic as the cluster's metadata describes it.
public struct TopicMetadata: Sendable, Hashable {
    /// The topic's name.
    public var name: String
    /// Its partitions' numbers, in order.
    public var partitions: [Int32]
}

/// Cluster administration: creating topics and reading metadata.
public final class KafkaAdmin: Sendable {
    let client: KafkaClient<ClientLifecycle<NativeHandle>>

    /// Creates an admin client.
    public init(configuration: KafkaConfiguration, logger: Logger) throws {
        let properties = configuration.commonProperties.merging(configuration.properties) { $1 }
        client = try KafkaClient(
            role: .admin, properties: properties, context: ClientContext(logger: logger, properties: properties))
    }

    /// Creates topics. Topics that exist already are left as they are when `ignoreExisting`;
    /// otherwise they fail with ``KafkaError/topicAlreadyExists``.
    public func createTopics(_ topics: [NewTopic], ignoreExisting: Bool = true, timeout: Duration = .seconds(30))
        async throws
    {
        try await call("create topics") {
            try $0.createTopics(topics, ignoreExisting: ignoreExisting, timeout: timeout)
        }
    }

    /// The refusal of a broker connection (``KafkaError/isConnectionRefusal``) that admin calls
    /// saw since the last time this was asked, which retrying does not mend (a refusal reaches a
    /// request only as "transport failure" or "timed out"); nil when there was none.
    public func takeConnectionRefusal() -> KafkaError? { client.context.takeRefusal() }

    /// Runs `body` on the client's thread, then serves the events that arrived meanwhile: the
    /// client's errors (logged, and a refusal kept), which nothing else would take off its queue.
    func call<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (NativeHandle) throws -> T) async throws
        -> T
    {
        try await client.blocking(operation) { native in
            defer { native.serveEvents() }
            return try body(native)
        }
    }

    /// The metadata of every topic in the cluster.
    public func topics(timeout: Duration = .seconds(10)) async throws -> [TopicMetadata] {
        try await call("metadata") { try $0.topics(timeout: timeout) }
    }

    /// The metadata of one topic, or nil when the cluster does not have it.
    public func topic(_ name: String, timeout: Duration = .seconds(10)) async throws -> TopicMetadata? {
        try await topics(timeout: timeout).first { $0.name == name }
    }

    /// Stops the admin client's thread; any call after it fails at once with
    /// ``KafkaError/Code/closed``. A second close does nothing.
    public func close() async {
        guard client.beginClose() else { return }
        await client.finishClose()
    }
}
