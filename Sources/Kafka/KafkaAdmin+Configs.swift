import CRDKafka

extension KafkaAdmin {
    /// The configs of each topic in `names` as the cluster reports them (explicit settings and
    /// the broker's defaults), by topic name. A topic the cluster does not know is absent; other
    /// failures (not authorized, a cluster that cannot describe configs) throw ``KafkaError``.
    public func topicConfigs(_ names: [String], timeout: Duration = .seconds(10)) async throws -> [String: [String: String]] {
        let ms = Int32(timeout.milliseconds)
        return try await client.blocking { handle in
            var resources: [OpaquePointer?] = names.map { rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, $0) }
            defer { resources.forEach { rd_kafka_ConfigResource_destroy($0) } }
            let queue = rd_kafka_queue_new(handle)
            defer { rd_kafka_queue_destroy(queue) }
            let options = rd_kafka_AdminOptions_new(handle, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS)
            defer { rd_kafka_AdminOptions_destroy(options) }
            var errorText = [CChar](repeating: 0, count: 512)
            _ = rd_kafka_AdminOptions_set_request_timeout(options, ms, &errorText, errorText.count)
            resources.withUnsafeMutableBufferPointer {
                rd_kafka_DescribeConfigs(handle, $0.baseAddress, $0.count, options, queue)
            }
            guard let event = rd_kafka_queue_poll(queue, ms + 1000) else {
                throw KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT, message: "describe configs: no answer")
            }
            defer { rd_kafka_event_destroy(event) }
            try KafkaError.check(rd_kafka_event_error(event), "describe configs")
            var count = 0
            guard let result = rd_kafka_event_DescribeConfigs_result(event),
                  let described = rd_kafka_DescribeConfigs_result_resources(result, &count) else { return [:] }
            var configs: [String: [String: String]] = [:]
            for index in 0..<count {
                let resource = described[index]
                let name = String(cString: rd_kafka_ConfigResource_name(resource))
                let err = rd_kafka_ConfigResource_error(resource)
                if err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART { continue }
                guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    let text = rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) }
                    throw KafkaError(err, message: "describe configs of \(name): \(text ?? String(cString: rd_kafka_err2str(err)))")
                }
                var entryCount = 0
                guard let entries = rd_kafka_ConfigResource_configs(resource, &entryCount) else { continue }
                var values: [String: String] = [:]
                for entryIndex in 0..<entryCount {
                    let entry = entries[entryIndex]
                    guard let value = rd_kafka_ConfigEntry_value(entry) else { continue }
                    values[String(cString: rd_kafka_ConfigEntry_name(entry))] = String(cString: value)
                }
                configs[name] = values
            }
            return configs
        }
    }
}
