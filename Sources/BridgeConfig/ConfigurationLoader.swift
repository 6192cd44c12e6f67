import DeviceQueues
import Foundation
import Yams

/// Reads a ``BridgeConfiguration`` from YAML, with environment variables overriding the file
/// (see ``EnvironmentOverrides``). Every problem is a ``ConfigurationError`` naming the field and
/// the variable that set it; a read reports all of them at once.
public enum ConfigurationLoader {
    /// Loads the YAML file at `path`.
    public static func load(file path: String, environment: [String: String]) throws(ConfigurationError)
        -> BridgeConfiguration
    {
        let (configuration, problems) = read(file: path, environment: environment)
        if let problems { throw problems }
        return configuration
    }

    /// Loads YAML text.
    public static func load(yaml: String, environment: [String: String]) throws(ConfigurationError)
        -> BridgeConfiguration
    {
        let (configuration, problems) = read(yaml: yaml, environment: environment)
        if let problems { throw problems }
        return configuration
    }

    /// Every field the loader reads, as dotted paths in the order read, with a free-form
    /// mapping's entries as `<path>.<name>` (`kafka.properties.<name>`): what the README's
    /// configuration reference must list.
    public static var fields: [String] {
        let problems = ConfigurationProblems()
        let overrides = EnvironmentOverrides([:])
        var root = ConfigurationSection(nil, path: "", environment: overrides, problems: problems)
        _ = read(&root, problems: problems)
        return overrides.fieldsAsked
    }

    /// Reads the YAML file at `path` as far as it goes: see ``read(yaml:environment:)``. A file
    /// that cannot be read is a problem, and the environment is read as over an empty file.
    public static func read(file path: String, environment: [String: String])
        -> (configuration: BridgeConfiguration, problems: ConfigurationError?)
    {
        do {
            return read(yaml: try String(contentsOfFile: path, encoding: .utf8), environment: environment)
        } catch {
            let problem = ConfigurationError(field: "", "cannot read \(path): \(error.localizedDescription)")
            return read(node: nil, environment: environment, first: problem)
        }
    }

    /// Reads YAML text as far as it goes: the configuration, with the default in place of each
    /// field that could not be read, and every problem found, in the order found (nil when none).
    /// Text that is not YAML is a problem, and the environment is read as over an empty file.
    public static func read(yaml: String, environment: [String: String])
        -> (configuration: BridgeConfiguration, problems: ConfigurationError?)
    {
        do {
            return read(node: try Yams.compose(yaml: yaml), environment: environment)
        } catch {
            return read(
                node: nil, environment: environment, first: ConfigurationError(field: "", "not valid YAML: \(error)"))
        }
    }

    private static func read(node: Node?, environment: [String: String], first: ConfigurationError? = nil)
        -> (configuration: BridgeConfiguration, problems: ConfigurationError?)
    {
        let problems = ConfigurationProblems()
        if let first { problems.record(first) }
        let overrides = EnvironmentOverrides(environment)
        var root = ConfigurationSection(node, path: "", environment: overrides, problems: problems)
        let configuration = read(&root, problems: problems)
        root.finish()
        overrides.recordUnused(in: problems)
        return (configuration, ConfigurationError(combining: problems.found)?.attributed(to: environment))
    }

    private static func read(_ root: inout ConfigurationSection, problems: ConfigurationProblems)
        -> BridgeConfiguration
    {
        var kafkaSection = root.section("kafka")
        let servers = kafkaSection.nonEmptyString("bootstrap_servers")
        if !kafkaSection.isSet("bootstrap_servers") {
            kafkaSection.problem("bootstrap_servers", "is required (host:port,...)")
        }
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: servers ?? ""))
        readKafka(&kafkaSection, into: &configuration.kafka, problems: problems)

        var topics = root.section("topics")
        readTopics(&topics, into: &configuration.topics)

        var queue = root.section("queue")
        readQueue(&queue, into: &configuration.queue)

        var apns = root.section("apns")
        configuration.bundleID = apns.nonEmptyString("bundle_id")
        configuration.payloadLimit =
            apns.integer("payload_limit", in: 256...1_000_000).map(Int.init) ?? configuration.payloadLimit
        apns.finish()

        configuration.delivery =
            root.choice("delivery", of: BridgeConfiguration.Delivery.self) ?? configuration.delivery
        var state = root.section("state")
        configuration.state.directory = state.nonEmptyString("directory")
        configuration.state.cleanupDelayMilliseconds =
            state.integer("cleanup_delay_ms", in: 0...604_800_000).map(Int.init)
            ?? configuration.state.cleanupDelayMilliseconds
        configuration.state.writeIntervalMilliseconds =
            state.integer("write_interval_ms", in: 0...3_600_000).map(Int.init)
            ?? configuration.state.writeIntervalMilliseconds
        configuration.state.deviceRows = state.boolean("device_rows") ?? configuration.state.deviceRows
        if configuration.state.deviceRows && configuration.state.directory == nil {
            state.problem("device_rows", "needs state.directory, where the rows are kept")
        }
        configuration.state.devicesHeld = state.integer("devices_held", in: 0...1_000_000_000).map(Int.init)
        if configuration.state.devicesHeld != nil && !configuration.state.deviceRows {
            state.problem("devices_held", "needs state.device_rows, which hold the devices not held in memory")
        }
        state.finish()
        if configuration.delivery == .atLeastOnce || configuration.state.directory != nil {
            if let problem = refuseReportsOnlyOnError(configuration.kafka) { problems.record(problem) }
        }
        configuration.commitIntervalMilliseconds =
            root.integer("commit_interval_ms", in: 1...10_000).map(Int.init)
            ?? configuration.commitIntervalMilliseconds
        configuration.maxBatchRecords =
            root.integer("max_batch_records", in: 1...1_000_000).map(Int.init) ?? configuration.maxBatchRecords
        configuration.maxBatchBytes =
            root.integer("max_batch_bytes", in: 65_536...1_073_741_824).map(Int.init) ?? configuration.maxBatchBytes
        configuration.shutdownTimeoutMilliseconds =
            root.integer("shutdown_timeout_ms", in: 100...3_600_000).map(Int.init)
            ?? configuration.shutdownTimeoutMilliseconds
        configuration.logLevel =
            root.choice("log_level", of: BridgeConfiguration.LogLevel.self) ?? configuration.logLevel

        var http = root.section("http")
        if let listen = http.nonEmptyString("listen") {
            if listen == "off" {
                configuration.http = nil
            } else if let address = HTTPAddress(parsing: listen) {
                configuration.http = address
            } else {
                http.problem("listen", "must be host:port (e.g. 0.0.0.0:9090, [::]:9090) or off, got \"\(listen)\"")
            }
        }
        http.finish()
        return configuration
    }

    private static func readKafka(
        _ section: inout ConfigurationSection, into kafka: inout BridgeConfiguration.Kafka,
        problems: ConfigurationProblems
    ) {
        kafka.groupID = section.nonEmptyString("group_id") ?? kafka.groupID
        kafka.clientID = section.nonEmptyString("client_id") ?? kafka.clientID
        kafka.transactionalID = section.nonEmptyString("transactional_id")
        kafka.groupInstanceID = section.nonEmptyString("group_instance_id")
        kafka.properties = section.freeFormStrings("properties")
        kafka.consumerProperties = section.freeFormStrings("consumer_properties")
        kafka.producerProperties = section.freeFormStrings("producer_properties")
        kafka.statisticsIntervalMilliseconds =
            section.integer("statistics_interval_ms", in: 0...86_400_000).map(Int.init)
            ?? kafka.statisticsIntervalMilliseconds
        section.finish()
        refuseTwoInstanceIDs(kafka).forEach(problems.record)
    }

    /// The transactional id follows `group_instance_id`: an instance id set as a librdkafka
    /// property beside it would make the two identities disagree.
    private static func refuseTwoInstanceIDs(_ kafka: BridgeConfiguration.Kafka) -> [ConfigurationError] {
        guard kafka.groupInstanceID != nil else { return [] }
        return [("kafka.properties", kafka.properties), ("kafka.consumer_properties", kafka.consumerProperties)]
            .filter { $0.1["group.instance.id"] != nil }
            .map {
                ConfigurationError(
                    field: "\($0.0).group.instance.id",
                    "kafka.group_instance_id sets the worker's instance id; set it there alone")
            }
    }

    /// At least once, every output's delivery report is awaited before its input is committed,
    /// and with a state directory, the changelog's, whose offsets the store's checkpoint is; with
    /// `delivery.report.only.error` set, librdkafka never reports a success. Checked as the
    /// producer gets it: `producer_properties` over `properties`.
    private static func refuseReportsOnlyOnError(_ kafka: BridgeConfiguration.Kafka) -> ConfigurationError? {
        let property = "delivery.report.only.error"
        let (section, value) =
            kafka.producerProperties[property].map { ("kafka.producer_properties", $0) }
            ?? ("kafka.properties", kafka.properties[property] ?? "false")
        // librdkafka's true: "true", "t" or "1", in any case.
        guard ["true", "t", "1"].contains(value.lowercased()) else { return nil }
        return ConfigurationError(
            field: "\(section).\(property)",
            "at least once and state.directory wait for delivery reports, which this setting turns off for successes; leave it out (exactly once without a state directory sets it itself)"
        )
    }

    private static func readTopics(_ section: inout ConfigurationSection, into topics: inout BridgeConfiguration.Topics)
    {
        for (key, path) in [
            ("send", \BridgeConfiguration.Topics.send), ("presence", \.presence), ("inbox", \.inbox),
            ("status", \.status), ("dead_letters", \.deadLetters), ("subscriptions", \.subscriptions),
        ] {
            guard let name = section.nonEmptyString(key) else { continue }
            guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }),
                name.count <= 249
            else {
                section.problem(
                    key, "\"\(name)\" is not a valid topic name (letters, digits, '.', '_', '-'; at most 249)")
                continue
            }
            topics[keyPath: path] = name
        }
        let names = [
            topics.send, topics.presence, topics.inbox, topics.status, topics.deadLetters, topics.subscriptions,
        ]
        if Set(names).count < names.count {
            section.problem("each topic needs its own name, got \(names)")
        }
        topics.partitions = section.integer("partitions", in: 1...10_000).map(Int32.init) ?? topics.partitions
        topics.statePartitions = section.integer("state_partitions", in: 1...10_000).map(Int32.init)
        section.finish()
    }

    private static func readQueue(_ section: inout ConfigurationSection, into rules: inout QueueRules) {
        rules.maxPending = section.integer("max_pending", in: 1...100_000).map(Int.init) ?? rules.maxPending
        rules.maxCollapseKeys =
            section.integer("max_collapse_keys", in: 1...1000).map(Int.init) ?? rules.maxCollapseKeys
        if let seconds = section.integer("default_time_to_live_seconds", in: 0...2_419_200) {
            rules.defaultTimeToLive = seconds * 1000
        }
        if let seconds = section.integer("inactive_after_seconds", in: 1...(10 * 365 * 24 * 3600)) {
            rules.inactiveAfter = seconds * 1000
        }
        rules.maxTopicsPerDevice =
            section.integer("max_topics_per_device", in: 1...100_000).map(Int.init) ?? rules.maxTopicsPerDevice
        section.finish()
    }
}
