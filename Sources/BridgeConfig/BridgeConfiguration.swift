import DeviceQueues

/// Everything an `fcm-bridge run` needs: the cluster, the topics, the queue rules, the APNs
/// settings and the delivery guarantee. Load it from YAML with ``ConfigurationLoader``.
public struct BridgeConfiguration: Sendable, Hashable {
    /// The Kafka cluster and the worker's identity in it.
    public struct Kafka: Sendable, Hashable {
        /// Comma-separated `host:port` list.
        public var bootstrapServers: String
        /// The consumer group the fleet shares; internal topics are named after it.
        public var groupID = "fcm-bridge"
        /// The client id brokers see.
        public var clientID = "fcm-bridge"
        /// The transactional id (exactly-once only); nil for one that follows
        /// ``groupInstanceID``, or without one, a unique one per start.
        public var transactionalID: String?
        /// The worker's static group membership (`group.instance.id`, KIP-345): a worker that
        /// comes back under it within the session timeout gets its partitions back, and nobody
        /// else's move. Nil for dynamic membership.
        public var groupInstanceID: String?
        /// Any librdkafka property, passed to every client; these win over derived settings.
        public var properties: [String: String] = [:]
        /// librdkafka properties for the consumers only; these win over ``properties``.
        public var consumerProperties: [String: String] = [:]
        /// librdkafka properties for the producer only; these win over ``properties``.
        public var producerProperties: [String: String] = [:]
        /// How often librdkafka reports its statistics to the metrics, in milliseconds; 0 for never.
        public var statisticsIntervalMilliseconds = 15_000

        /// Settings for the given cluster, with defaults for the rest.
        public init(bootstrapServers: String) {
            self.bootstrapServers = bootstrapServers
        }

        /// The transactional id that outlives a restart: ``transactionalID`` if set, else
        /// `<group_id>-<group_instance_id>`, so that a worker coming back under its identity
        /// fences its predecessor's open transaction at once. Nil with neither.
        public var stableTransactionalID: String? {
            transactionalID ?? groupInstanceID.map { "\(groupID)-\($0)" }
        }
    }

    /// Topic names, defaulting to the contract's.
    public struct Topics: Sendable, Hashable {
        public var send = "fcm.send"
        public var presence = "fcm.presence"
        public var inbox = "fcm.inbox"
        public var status = "fcm.status"
        public var deadLetters = "fcm.dlq"
        /// Subscription requests (FCM's batchAdd / batchRemove), an input.
        public var subscriptions = "fcm.subscriptions"
        /// Partitions for topics the bridge creates because they are missing.
        public var partitions: Int32 = 4
        /// Partitions of the internal topics (device state is split this many ways); nil for
        /// as many as the send topic has.
        public var statePartitions: Int32?

        /// The contract's default names.
        public init() {}
    }

    /// The delivery guarantee.
    public enum Delivery: String, Sendable, Hashable, CaseIterable {
        /// Outputs, changelog and input offsets in one Kafka transaction per batch.
        case exactlyOnce = "exactly_once"
        /// For brokers without transactions: offsets committed once every output is acknowledged;
        /// a crash repeats outputs, with the same message ids.
        case atLeastOnce = "at_least_once"
    }

    /// The local state store: each state partition's state on disk, so that a restart replays
    /// only the changelog written since.
    public struct State: Sendable, Hashable {
        /// Where the stores are kept; nil keeps state in memory only, rebuilt from the whole
        /// changelog at every assignment.
        public var directory: String?
        /// How long the store of a partition revoked and not given back is kept, in
        /// milliseconds (Kafka Streams' `state.cleanup.delay.ms`).
        public var cleanupDelayMilliseconds = 600_000
        /// How long a committed change waits, at most, before it is written to its store, in
        /// milliseconds: a crash replays this much more of the changelog's tail. Changes are
        /// written sooner once 65,536 wait, and always before a partition is let go or restored
        /// and at a graceful stop.
        public var writeIntervalMilliseconds = 1_000
        /// Whether each state partition's devices are also written as rows keyed by token, beside
        /// its store and with it after each commit, at the same checkpoint: the store the worker
        /// is to serve its state from (docs/SCALING.md, section 9).
        public var deviceRows = false
        /// How many devices are held in memory, about, over the state partitions, which are then
        /// served from their device rows (needs ``deviceRows``); nil holds every device.
        public var devicesHeld: Int?

        /// No state directory.
        public init() {}
    }

    /// How much to log: swift-log's level names, from `trace` to `critical`.
    public enum LogLevel: String, Sendable, Hashable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    public var kafka: Kafka
    public var topics = Topics()
    /// The per-device queueing rules.
    public var queue = QueueRules()
    /// The default `apns-topic`; nil sends none unless a request's header gives one.
    public var bundleID: String?
    /// The largest APNs payload, in bytes.
    public var payloadLimit = 4096
    /// The delivery guarantee.
    public var delivery = Delivery.exactlyOnce
    /// How often a batch (one transaction) is committed while records arrive, in milliseconds:
    /// load makes large batches, a trickle gets low latency.
    public var commitIntervalMilliseconds = 100
    /// The most input records in one batch: it is committed early when it has as many.
    public var maxBatchRecords = 10_000
    /// The most output bytes (keys and values) in one batch: it is committed early when it has
    /// as many, so that a transaction stays short.
    public var maxBatchBytes = 16 * 1024 * 1024

    /// The local state store.
    public var state = State()

    /// How much to log, unless a command's `--log-level` says.
    public var logLevel = LogLevel.info

    /// Where `/metrics`, `/healthz` and `/readyz` are served; nil for nowhere.
    public var http: HTTPAddress? = HTTPAddress(host: "0.0.0.0", port: 9090)

    /// How long a graceful shutdown (finish the batch, leave the group) may take before the
    /// process exits anyway, in milliseconds. What was not committed is processed again by the
    /// partitions' next owner.
    public var shutdownTimeoutMilliseconds = 30_000

    /// A configuration for the given cluster, with defaults for the rest.
    public init(kafka: Kafka) {
        self.kafka = kafka
    }

    /// The changelog topic holding device state, named after the consumer group.
    public var changelogTopic: String { "\(kafka.groupID).device-state-changelog" }
    /// The repartition topic routing inputs to the worker that owns each device.
    public var repartitionTopic: String { "\(kafka.groupID).device-repartition" }
}

/// A `host:port` to listen on (`[::1]:9090` for an IPv6 address); port 0 picks a free one.
public struct HTTPAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port`; nil when it is not one.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        var host = Substring(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.init(host: String(host), port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
