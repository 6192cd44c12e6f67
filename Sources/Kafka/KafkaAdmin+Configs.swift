import CRDKafka

extension KafkaAdmin {
    /// The configs of each topic in `names` as the cluster reports them (explicit settings and
    /// the broker's defaults), by topic name. A topic the cluster does not know is absent; other
    /// failures (not authorized, a cluster that cannot describe configs) throw ``KafkaError``.
    public func topicConfigs(_ names: [String], timeout: Duration = .seconds(10)) async throws -> [String: [String:
        String]]
    {
        let ms = Int32(timeout.milliseconds)
        try client.checkServing("describe configs")
        return try await client.blocking { handle in
            var resources: [OpaquePointer?] = names.map { rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, $0) }
            defer { for resource in resources { rd_kafka_ConfigResource_destroy(resource) } }
            return try Self.request(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, "describe configs", handle: handle, timeout: ms)
            { options, queue in
                resources.withUnsafeMutableBufferPointer {
                    rd_kafka_DescribeConfigs(handle, $0.baseAddress, $0.count, options, queue)
                }
            } read: { answer in
                var count = 0
                guard let result = rd_kafka_event_DescribeConfigs_result(answer),
                    let described = rd_kafka_DescribeConfigs_result_resources(result, &count)
                else { return [:] }
                return try Self.configs(of: UnsafeBufferPointer(start: described, count: count))
            }
        }
    }

    /// The configs of each described topic, by name; an unknown topic is absent.
    private static func configs(of described: UnsafeBufferPointer<OpaquePointer?>) throws -> [String: [String: String]]
    {
        var configs: [String: [String: String]] = [:]
        for resource in described {
            let name = String(cString: rd_kafka_ConfigResource_name(resource))
            let err = rd_kafka_ConfigResource_error(resource)
            if err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART { continue }
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                let text = rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) }
                throw KafkaError(
                    err, message: "describe configs of \(name): \(text ?? String(cString: rd_kafka_err2str(err)))")
            }
            var entryCount = 0
            guard let entries = rd_kafka_ConfigResource_configs(resource, &entryCount) else { continue }
            var values: [String: String] = [:]
            for entry in UnsafeBufferPointer(start: entries, count: entryCount) {
                guard let value = rd_kafka_ConfigEntry_value(entry) else { continue }
                values[String(cString: rd_kafka_ConfigEntry_name(entry))] = String(cString: value)
            }
            configs[name] = values
        }
        return configs
    }
}
