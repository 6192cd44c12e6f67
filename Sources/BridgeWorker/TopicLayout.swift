import BridgeConfig
import BridgeCore
import Kafka
import Logging

/// How the bridge's topics are partitioned, found (and missing topics created) at start-up.
struct TopicLayout: Sendable {
    /// Partitions of the changelog and repartition topics.
    var statePartitions: Int32
    /// Input topics with as many partitions as the state.
    var colocatedTopics: Set<String>
    /// The largest record the topics the bridge writes accept: their lowest `max.message.bytes`
    /// (which counts a whole record batch) less the batch's framing; nil where the cluster does
    /// not report it.
    var maxRecordBytes: Int?

    /// Creates missing topics and checks that the internal ones are partitioned alike.
    static func prepare(_ configuration: BridgeConfiguration, admin: KafkaAdmin, logger: Logger) async throws
        -> TopicLayout
    {
        let topics = configuration.topics
        var existing = Dictionary(try await admin.topics().map { ($0.name, Int32($0.partitions.count)) }) { $1 }
        let external = [
            topics.send, topics.presence, topics.subscriptions, topics.inbox, topics.status, topics.deadLetters,
        ]
        let missing = external.filter { existing[$0] == nil }
        if !missing.isEmpty {
            logger.notice(
                "creating missing topics", metadata: ["topics": "\(missing)", "partitions": "\(topics.partitions)"])
            try await admin.createTopics(missing.map { NewTopic(name: $0, partitions: topics.partitions) })
            for name in missing { existing[name] = topics.partitions }
        }
        let statePartitions = Self.statePartitions(of: configuration, existing: existing)
        let internalTopics = [
            NewTopic(
                name: configuration.changelogTopic, partitions: statePartitions,
                configs: InternalTopicSettings.changelog),
            NewTopic(
                name: configuration.repartitionTopic, partitions: statePartitions,
                configs: InternalTopicSettings.repartition),
        ]
        for topic in internalTopics {
            if let count = existing[topic.name] {
                guard count == statePartitions else {
                    throw ConfigurationError(
                        field: "topics.state_partitions",
                        "internal topic \(topic.name) has \(count) partitions but device state is split \(statePartitions) ways; "
                            + "set topics.state_partitions to \(count) (changing it would move devices between partitions)"
                    )
                }
            } else {
                logger.notice(
                    "creating internal topic", metadata: ["topic": "\(topic.name)", "partitions": "\(statePartitions)"])
                try await admin.createTopics([topic])
            }
        }
        let maxRecordBytes = try await checkSettings(configuration, admin: admin, logger: logger)
            .map { $0 - OutputLimits.batchOverheadBytes }
        let colocated = Set([topics.send, topics.presence].filter { existing[$0] == statePartitions })
        return TopicLayout(statePartitions: statePartitions, colocatedTopics: colocated, maxRecordBytes: maxRecordBytes)
    }

    /// The changelog's topic id, which tells the local stores a changelog since deleted and
    /// created again; or nil, said once, where the cluster gives none, or cannot or will not
    /// describe the topic: a store is then checked against the changelog's offsets alone.
    /// Throws only when no broker answers (``KafkaError/isClusterUnreachable``), for the caller
    /// to try again.
    static func changelogID(_ changelog: String, admin: KafkaAdmin, logger: Logger) async throws -> TopicID? {
        let id: TopicID?
        do {
            id = try await admin.topicID(of: changelog)
        } catch let error as KafkaError where error.isClusterUnreachable {
            throw error
        } catch {
            logger.warning(
                "cannot learn the changelog's topic id: a changelog deleted and created again is told only by its offsets",
                metadata: ["error": "\(error)"])
            return nil
        }
        if id == nil {
            logger.notice(
                "the changelog has no topic id (Kafka before 2.8, or not yet known to the broker answering): a changelog deleted and created again is told only by its offsets"
            )
        }
        return id
    }

    /// How many ways device state is split: as configured, else as the send topic is (or will be,
    /// once created), given each existing topic's partition count.
    static func statePartitions(of configuration: BridgeConfiguration, existing: [String: Int32]) -> Int32 {
        configuration.topics.statePartitions ?? existing[configuration.topics.send] ?? configuration.topics.partitions
    }

    /// Refuses internal topics whose settings would lose state or event time (they may have been
    /// created by hand, or by an older version), and returns the lowest `max.message.bytes` of
    /// the topics the bridge writes. A cluster that cannot describe configs is trusted; an
    /// unreachable one is thrown, for the caller to try again.
    private static func checkSettings(_ configuration: BridgeConfiguration, admin: KafkaAdmin, logger: Logger)
        async throws -> Int?
    {
        let topics = configuration.topics
        let changelog = configuration.changelogTopic
        let repartition = configuration.repartitionTopic
        let outputs = [topics.inbox, topics.status, topics.deadLetters, changelog, repartition]
        let configs: [String: [String: String]]
        do {
            configs = try await admin.topicConfigs(outputs)
        } catch let error as KafkaError where error.isClusterUnreachable {
            throw error
        } catch {
            logger.warning(
                "cannot check the topics' settings; make sure the internal ones are as the README says",
                metadata: ["error": "\(error)"])
            return nil
        }
        let problems =
            InternalTopicSettings.changelogProblems(changelog, configs: configs[changelog] ?? [:])
            + InternalTopicSettings.repartitionProblems(repartition, configs: configs[repartition] ?? [:])
        guard problems.isEmpty else { throw ConfigurationError(field: "", problems.joined(separator: "; and ")) }
        return outputs.compactMap { configs[$0]?["max.message.bytes"].flatMap { Int($0) } }.min()
    }
}
