import DeviceQueues
import Foundation
import Yams

/// Reads a ``BridgeConfiguration`` from YAML, with environment variables overriding the file
/// (see ``EnvironmentOverrides``). Every problem is a ``ConfigurationError`` naming the field.
public enum ConfigurationLoader {
    /// Loads the YAML file at `path`.
    public static func load(file path: String, environment: [String: String]) throws(ConfigurationError)
        -> BridgeConfiguration
    {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(field: "", "cannot read \(path): \(error.localizedDescription)")
        }
        return try load(yaml: text, environment: environment)
    }

    /// Loads YAML text.
    public static func load(yaml: String, environment: [String: String]) throws(ConfigurationError)
        -> BridgeConfiguration
    {
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch {
            throw ConfigurationError(field: "", "not valid YAML: \(error)")
        }
        let overrides = EnvironmentOverrides(environment)
        var root = try ConfigurationSection(node, path: "", environment: overrides)
        let configuration = try read(&root)
        try root.finish()
        try overrides.checkAllUsed()
        return configuration
    }

    private static func read(_ root: inout ConfigurationSection) throws(ConfigurationError) -> BridgeConfiguration {
        var kafkaSection = try root.section("kafka")
        guard let servers = try kafkaSection.nonEmptyString("bootstrap_servers") else {
            throw ConfigurationError(field: "kafka.bootstrap_servers", "is required (host:port,...)")
        }
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: servers))
        try readKafka(&kafkaSection, into: &configuration.kafka)

        var topics = try root.section("topics")
        try readTopics(&topics, into: &configuration.topics)

        var queue = try root.section("queue")
        try readQueue(&queue, into: &configuration.queue)

        var apns = try root.section("apns")
        configuration.bundleID = try apns.nonEmptyString("bundle_id")
        configuration.payloadLimit =
            try apns.integer("payload_limit", in: 256...1_000_000).map(Int.init) ?? configuration.payloadLimit
        try apns.finish()

        configuration.delivery =
            try root.choice("delivery", of: BridgeConfiguration.Delivery.self) ?? configuration.delivery
        var state = try root.section("state")
        configuration.state.directory = try state.nonEmptyString("directory")
        configuration.state.cleanupDelayMilliseconds =
            try state.integer("cleanup_delay_ms", in: 0...604_800_000).map(Int.init)
            ?? configuration.state.cleanupDelayMilliseconds
        try state.finish()
        if configuration.delivery == .atLeastOnce || configuration.state.directory != nil {
            try refuseReportsOnlyOnError(configuration.kafka)
        }
        configuration.commitIntervalMilliseconds =
            try root.integer("commit_interval_ms", in: 1...10_000).map(Int.init)
            ?? configuration.commitIntervalMilliseconds
        configuration.maxBatchRecords =
            try root.integer("max_batch_records", in: 1...1_000_000).map(Int.init) ?? configuration.maxBatchRecords
        configuration.maxBatchBytes =
            try root.integer("max_batch_bytes", in: 65_536...1_073_741_824).map(Int.init) ?? configuration.maxBatchBytes
        configuration.shutdownTimeoutMilliseconds =
            try root.integer("shutdown_timeout_ms", in: 100...3_600_000).map(Int.init)
            ?? configuration.shutdownTimeoutMilliseconds
        configuration.logLevel =
            try root.choice("log_level", of: BridgeConfiguration.LogLevel.self) ?? configuration.logLevel

        var http = try root.section("http")
        if let listen = try http.nonEmptyString("listen") {
            if listen == "off" {
                configuration.http = nil
            } else {
                guard let address = HTTPAddress(parsing: listen) else {
                    throw ConfigurationError(
                        field: http.field("listen"),
                        "must be host:port (e.g. 0.0.0.0:9090, [::]:9090) or off, got \"\(listen)\"")
                }
                configuration.http = address
            }
        }
        try http.finish()
        return configuration
    }

    private static func readKafka(_ section: inout ConfigurationSection, into kafka: inout BridgeConfiguration.Kafka)
        throws(ConfigurationError)
    {
        kafka.groupID = try section.nonEmptyString("group_id") ?? kafka.groupID
        kafka.clientID = try section.nonEmptyString("client_id") ?? kafka.clientID
        kafka.transactionalID = try section.nonEmptyString("transactional_id")
        kafka.groupInstanceID = try section.nonEmptyString("group_instance_id")
        kafka.properties = try section.freeFormStrings("properties")
        kafka.consumerProperties = try section.freeFormStrings("consumer_properties")
        kafka.producerProperties = try section.freeFormStrings("producer_properties")
        kafka.statisticsIntervalMilliseconds =
            try section.integer("statistics_interval_ms", in: 0...86_400_000).map(Int.init)
            ?? kafka.statisticsIntervalMilliseconds
        try section.finish()
        try refuseTwoInstanceIDs(kafka)
    }

    /// The transactional id follows `group_instance_id`: an instance id set as a librdkafka
    /// property beside it would make the two identities disagree.
    private static func refuseTwoInstanceIDs(_ kafka: BridgeConfiguration.Kafka) throws(ConfigurationError) {
        guard kafka.groupInstanceID != nil else { return }
        for (section, properties) in [
            ("kafka.properties", kafka.properties), ("kafka.consumer_properties", kafka.consumerProperties),
        ] where properties["group.instance.id"] != nil {
            throw ConfigurationError(
                field: "\(section).group.instance.id",
                "kafka.group_instance_id sets the worker's instance id; set it there alone")
        }
    }

    /// At least once, every output's delivery report is awaited before its input is committed,
    /// and with a state directory, the changelog's, whose offsets the store's checkpoint is; with
    /// `delivery.report.only.error` set, librdkafka never reports a success. Checked as the
    /// producer gets it: `producer_properties` over `properties`.
    private static func refuseReportsOnlyOnError(_ kafka: BridgeConfiguration.Kafka) throws(ConfigurationError) {
        let property = "delivery.report.only.error"
        let (section, value) =
            kafka.producerProperties[property].map { ("kafka.producer_properties", $0) }
            ?? ("kafka.properties", kafka.properties[property] ?? "false")
        // librdkafka's true: "true", "t" or "1", in any case.
        if ["true", "t", "1"].contains(value.lowercased()) {
            throw ConfigurationError(
                field: "\(section).\(property)",
                "at least once and state.directory wait for delivery reports, which this setting turns off for successes; leave it out (exactly once without a state directory sets it itself)"
            )
        }
    }

    private static func readTopics(_ section: inout ConfigurationSection, into topics: inout BridgeConfiguration.Topics)
        throws(ConfigurationError)
    {
        for (key, path) in [
            ("send", \BridgeConfiguration.Topics.send), ("presence", \.presence), ("inbox", \.inbox),
            ("status", \.status), ("dead_letters", \.deadLetters), ("subscriptions", \.subscriptions),
        ] {
            if let name = try section.nonEmptyString(key) {
                guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }),
                    name.count <= 249
                else {
                    throw ConfigurationError(
                        field: section.field(key),
                        "\"\(name)\" is not a valid topic name (letters, digits, '.', '_', '-'; at most 249)")
                }
                topics[keyPath: path] = name
            }
        }
        let names = [
            topics.send, topics.presence, topics.inbox, topics.status, topics.deadLetters, topics.subscriptions,
        ]
        if Set(names).count < names.count {
            throw ConfigurationError(field: section.path, "each topic needs its own name, got \(names)")
        }
        topics.partitions = try section.integer("partitions", in: 1...10_000).map(Int32.init) ?? topics.partitions
        topics.statePartitions = try section.integer("state_partitions", in: 1...10_000).map(Int32.init)
        try section.finish()
    }

    private static func readQueue(_ section: inout ConfigurationSection, into rules: inout QueueRules)
        throws(ConfigurationError)
    {
        rules.maxPending = try section.integer("max_pending", in: 1...100_000).map(Int.init) ?? rules.maxPending
        rules.maxCollapseKeys =
            try section.integer("max_collapse_keys", in: 1...1000).map(Int.init) ?? rules.maxCollapseKeys
        if let seconds = try section.integer("default_time_to_live_seconds", in: 0...2_419_200) {
            rules.defaultTimeToLive = seconds * 1000
        }
        if let seconds = try section.integer("inactive_after_seconds", in: 1...(10 * 365 * 24 * 3600)) {
            rules.inactiveAfter = seconds * 1000
        }
        rules.maxTopicsPerDevice =
            try section.integer("max_topics_per_device", in: 1...100_000).map(Int.init) ?? rules.maxTopicsPerDevice
        try section.finish()
    }
}
