import SecretProperties

extension BridgeConfiguration: CustomStringConvertible {
    /// Every field by its YAML name; values of secret Kafka properties show as `[redacted]`.
    public var description: String {
        let fields = [
            "kafka: \(kafka)", "topics: \(topics)", "queue: \(queue)", "bundle_id: \(bundleID ?? "none")",
            "payload_limit: \(payloadLimit)", "delivery: \(delivery.rawValue)",
            "commit_interval_ms: \(commitIntervalMilliseconds)", "max_batch_records: \(maxBatchRecords)",
            "max_batch_bytes: \(maxBatchBytes)", "shutdown_timeout_ms: \(shutdownTimeoutMilliseconds)",
        ]
        return "BridgeConfiguration(" + fields.joined(separator: ", ") + ")"
    }
}

extension BridgeConfiguration.Kafka: CustomStringConvertible {
    /// Every field by its YAML name; values of secret properties show as `[redacted]`.
    public var description: String {
        let fields = [
            "bootstrap_servers: \(bootstrapServers)", "group_id: \(groupID)", "client_id: \(clientID)",
            "transactional_id: \(transactionalID ?? "one per start")",
            "properties: \(SecretProperties.redactedDescription(of: properties))",
            "consumer_properties: \(SecretProperties.redactedDescription(of: consumerProperties))",
            "producer_properties: \(SecretProperties.redactedDescription(of: producerProperties))",
        ]
        return "(" + fields.joined(separator: ", ") + ")"
    }
}
