import BridgeConfig
import Kafka
import Logging

/// What `fcm-bridge topics` says about the topics a configuration names: whether each exists,
/// how it is split, and what would break co-partitioning or lose state. Built from what the
/// cluster reports, with no I/O of its own.
public struct TopicReport: Sendable, CustomStringConvertible {
    /// One topic.
    public struct Entry: Sendable {
        /// The topic's name.
        public var name: String
        /// What the bridge uses it for.
        public var role: String
        /// Its partitions; nil when it does not exist.
        public var partitions: Int32?
        /// What must be fixed before a worker can run.
        public var problems: [String] = []
        /// What works but costs something.
        public var notes: [String] = []
    }

    /// Every topic, inputs first, then outputs, then the internal ones.
    public var entries: [Entry]
    /// How many ways the device state is split.
    public var statePartitions: Int32

    /// What must be fixed, each naming its topic.
    public var problems: [String] { entries.flatMap { entry in entry.problems.map { "\(entry.name): \($0)" } } }

    /// The report for `configuration`, given each existing topic's partition count and, where
    /// the cluster describes them, the configs of the internal topics.
    public init(configuration: BridgeConfiguration, partitions: [String: Int32], configs: [String: [String: String]]?) {
        let topics = configuration.topics
        statePartitions = TopicLayout.statePartitions(of: configuration, existing: partitions)
        let state = statePartitions
        let external: [(name: String, role: String, colocatable: Bool)] = [
            (topics.send, "input: send requests", true), (topics.presence, "input: presence", true),
            (topics.subscriptions, "input: subscription requests", false),
            (topics.inbox, "output: device inboxes", false), (topics.status, "output: status events", false),
            (topics.deadLetters, "output: dead letters", false),
        ]
        var entries: [Entry] = []
        for (name, role, colocatable) in external {
            var entry = Entry(name: name, role: role, partitions: partitions[name])
            if let count = entry.partitions {
                if colocatable, count != state {
                    entry.notes.append(
                        "split \(count) ways, the state \(state): not co-partitioned, so every record takes one extra hop through \(configuration.repartitionTopic); give it \(state) partitions to handle records where they land"
                    )
                }
            } else {
                entry.problems.append(
                    "missing (`fcm-bridge topics --create` creates it, with \(topics.partitions) partitions)")
            }
            entries.append(entry)
        }
        for (name, role) in [
            (configuration.changelogTopic, "internal: device state changelog"),
            (configuration.repartitionTopic, "internal: repartition"),
        ] {
            var entry = Entry(name: name, role: role, partitions: partitions[name])
            guard let count = entry.partitions else {
                entry.problems.append("missing (`fcm-bridge topics --create` creates it, with \(state) partitions)")
                entries.append(entry)
                continue
            }
            if count != state {
                entry.problems.append(
                    "has \(count) partitions but device state is split \(state) ways (topics.state_partitions); it cannot change once state exists"
                )
            }
            let reported = configs?[name] ?? [:]
            entry.problems +=
                name == configuration.changelogTopic
                ? InternalTopicSettings.changelogProblems(name, configs: reported)
                : InternalTopicSettings.repartitionProblems(name, configs: reported)
            if configs == nil, name == configuration.changelogTopic {
                entry.notes.append("the cluster did not describe topic configs: settings not checked")
            }
            entries.append(entry)
        }
        self.entries = entries
    }

    public var description: String {
        var lines = ["device state is split \(statePartitions) ways"]
        for entry in entries {
            lines.append("\(entry.name) (\(entry.role)): \(entry.partitions.map { "\($0) partitions" } ?? "missing")")
            lines += entry.problems.map { "  problem: \($0)" }
            lines += entry.notes.map { "  note: \($0)" }
        }
        return lines.joined(separator: "\n")
    }

    /// Reads the cluster's topics and reports on them.
    public static func survey(_ configuration: BridgeConfiguration, admin: KafkaAdmin) async throws -> TopicReport {
        let partitions = Dictionary(try await admin.topics().map { ($0.name, Int32($0.partitions.count)) }) { $1 }
        let internalTopics = [configuration.changelogTopic, configuration.repartitionTopic].filter {
            partitions[$0] != nil
        }
        let configs = internalTopics.isEmpty ? [:] : try? await admin.topicConfigs(internalTopics)
        return TopicReport(configuration: configuration, partitions: partitions, configs: configs)
    }

    /// Creates what is missing as a starting worker does, then reports.
    public static func create(_ configuration: BridgeConfiguration, admin: KafkaAdmin, logger: Logger) async throws
        -> TopicReport
    {
        _ = try await TopicLayout.prepare(configuration, admin: admin, logger: logger)
        return try await survey(configuration, admin: admin)
    }
}
