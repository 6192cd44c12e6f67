import SecretProperties

extension BridgeConfiguration: CustomStringConvertible {
    /// Every field by its YAML path, one per line, as `validate-config` prints them; values of
    /// secret Kafka properties show as `[redacted]`.
    public var fieldLines: [String] {
        [
            "kafka.bootstrap_servers: \(kafka.bootstrapServers)", "kafka.group_id: \(kafka.groupID)",
            "kafka.client_id: \(kafka.clientID)",
            "kafka.group_instance_id: \(kafka.groupInstanceID ?? "none (dynamic membership)")",
            "kafka.transactional_id: \(kafka.stableTransactionalID ?? "one per start")",
            "kafka.properties: \(SecretProperties.redactedDescription(of: kafka.properties))",
            "kafka.consumer_properties: \(SecretProperties.redactedDescription(of: kafka.consumerProperties))",
            "kafka.producer_properties: \(SecretProperties.redactedDescription(of: kafka.producerProperties))",
            "kafka.statistics_interval_ms: \(kafka.statisticsIntervalMilliseconds)",
            "topics.send: \(topics.send)", "topics.presence: \(topics.presence)", "topics.inbox: \(topics.inbox)",
            "topics.status: \(topics.status)", "topics.dead_letters: \(topics.deadLetters)",
            "topics.subscriptions: \(topics.subscriptions)",
            "topics.partitions: \(topics.partitions)",
            "topics.state_partitions: \(topics.statePartitions.map { "\($0)" } ?? "as many as the send topic has")",
            "queue.max_pending: \(queue.maxPending)", "queue.max_collapse_keys: \(queue.maxCollapseKeys)",
            "queue.default_time_to_live_seconds: \(queue.defaultTimeToLive / 1000)",
            "queue.inactive_after_seconds: \(queue.inactiveAfter / 1000)",
            "queue.max_topics_per_device: \(queue.maxTopicsPerDevice)",
            "apns.bundle_id: \(bundleID ?? "none")", "apns.payload_limit: \(payloadLimit)",
            "delivery: \(delivery.rawValue)",
            "state.directory: \(state.directory ?? "none (state in memory, restored from the whole changelog)")",
            "state.cleanup_delay_ms: \(state.cleanupDelayMilliseconds)",
            "state.write_interval_ms: \(state.writeIntervalMilliseconds)", "state.device_rows: \(state.deviceRows)",
            "state.devices_held: \(state.devicesHeld.map(String.init) ?? "every device")",
            "commit_interval_ms: \(commitIntervalMilliseconds)", "max_batch_records: \(maxBatchRecords)",
            "max_batch_bytes: \(maxBatchBytes)", "shutdown_timeout_ms: \(shutdownTimeoutMilliseconds)",
            "log_level: \(logLevel.rawValue)",
            "http.listen: \(http.map { "\($0)" } ?? "off")",
            "(internal topics: \(changelogTopic), \(repartitionTopic))",
        ]
    }

    /// Every field by its YAML path; values of secret Kafka properties show as `[redacted]`.
    public var description: String {
        "BridgeConfiguration(" + fieldLines.joined(separator: ", ") + ")"
    }
}
