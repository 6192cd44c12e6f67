import CRDKafka

/// An admin client's calls. Each blocks until the cluster answers or `timeout` passes.
extension NativeHandle {
    /// Creates topics; with `ignoreExisting`, one that exists already is no error.
    func createTopics(_ topics: [NewTopic], ignoreExisting: Bool, timeout: Duration) throws {
        var errorText = [CChar](repeating: 0, count: 512)
        var natives: [OpaquePointer?] = []
        defer { for native in natives { rd_kafka_NewTopic_destroy(native) } }
        for topic in topics {
            guard
                let native = rd_kafka_NewTopic_new(
                    topic.name, topic.partitions, topic.replicationFactor, &errorText, errorText.count)
            else {
                throw KafkaError.invalidArgument("topic \(topic.name): \(String(cBuffer: errorText))")
            }
            natives.append(native)
            for (name, value) in topic.configs.sorted(by: { $0.key < $1.key }) {
                try KafkaError.check(
                    rd_kafka_NewTopic_set_config(native, name, value), "topic \(topic.name) config \(name)")
            }
        }
        try request(RD_KAFKA_ADMIN_OP_CREATETOPICS, "create topics", timeout: timeout) { options, queue in
            natives.withUnsafeMutableBufferPointer {
                rd_kafka_CreateTopics(pointer, $0.baseAddress, $0.count, options, queue)
            }
        } read: { answer in
            var count = 0
            guard let result = rd_kafka_event_CreateTopics_result(answer),
                let results = rd_kafka_CreateTopics_result_topics(result, &count)
            else { return }
            for index in 0..<count {
                let err = rd_kafka_topic_result_error(results[index])
                if err == RD_KAFKA_RESP_ERR_NO_ERROR
                    || (ignoreExisting && err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
                {
                    continue
                }
                let name = String(cString: rd_kafka_topic_result_name(results[index]))
                let text = rd_kafka_topic_result_error_string(results[index]).map { String(cString: $0) }
                throw KafkaError(
                    err, message: "create topic \(name): \(text ?? String(cString: rd_kafka_err2str(err)))")
            }
        }
    }

    /// The metadata of every topic the cluster has.
    func topics(timeout: Duration) throws -> [TopicMetadata] {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        try KafkaError.check(
            rd_kafka_metadata(pointer, 1, nil, &metadata, Int32(clamping: timeout.milliseconds)), "metadata")
        guard let metadata else { return [] }
        defer { rd_kafka_metadata_destroy(metadata) }
        let md = metadata.pointee
        return (0..<Int(md.topic_cnt)).compactMap { index in
            let topic = md.topics[index]
            guard topic.err == RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
            let partitions = (0..<Int(topic.partition_cnt)).map { topic.partitions[$0].id }.sorted()
            return TopicMetadata(name: String(cString: topic.topic), partitions: partitions)
        }
    }

    /// The configs of each topic in `names` the cluster knows, by name.
    func topicConfigs(_ names: [String], timeout: Duration) throws -> [String: [String: String]] {
        var resources: [OpaquePointer?] = names.map { rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, $0) }
        defer { for resource in resources { rd_kafka_ConfigResource_destroy(resource) } }
        return try request(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, "describe configs", timeout: timeout) {
            options, queue in
            resources.withUnsafeMutableBufferPointer {
                rd_kafka_DescribeConfigs(pointer, $0.baseAddress, $0.count, options, queue)
            }
        } read: { answer in
            var count = 0
            guard let result = rd_kafka_event_DescribeConfigs_result(answer),
                let described = rd_kafka_DescribeConfigs_result_resources(result, &count)
            else { return [:] }
            return try Self.configs(of: UnsafeBufferPointer(start: described, count: count))
        }
    }

    /// Deletes the records before each offset; returns each partition's new low watermark.
    func deleteRecords(before offsets: [TopicPartitionOffset], timeout: Duration) throws -> [TopicPartitionOffset] {
        let list = NativePartitionList(offsets)
        var request: OpaquePointer? = rd_kafka_DeleteRecords_new(list.pointer)
        defer { rd_kafka_DeleteRecords_destroy(request) }
        return try self.request(RD_KAFKA_ADMIN_OP_DELETERECORDS, "delete records", timeout: timeout) {
            options, queue in
            rd_kafka_DeleteRecords(pointer, &request, 1, options, queue)
        } read: { answer in
            guard let result = rd_kafka_event_DeleteRecords_result(answer),
                let partitions = rd_kafka_DeleteRecords_result_offsets(result)
            else { return [] }
            let entries = NativePartitionList.copy(of: UnsafeMutablePointer(mutating: partitions))
            try entries.checkErrors("delete records")
            return entries.entries.map { TopicPartitionOffset($0.partition, offset: $0.offset) }
        }
    }

    /// Starts one admin request with `send` (given options with the timeouts set, and the queue
    /// its answer comes to), waits for the answer, checks it for a request-level error and hands
    /// it to `read`, which must not keep it.
    func request<T>(
        _ operation: rd_kafka_admin_op_t, _ what: String, timeout: Duration,
        send: (_ options: OpaquePointer?, _ queue: OpaquePointer?) -> Void,
        read: (_ answer: OpaquePointer) throws -> T
    ) throws -> T {
        let ms = Int32(clamping: timeout.milliseconds)
        let queue = rd_kafka_queue_new(pointer)
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(pointer, operation)
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errorText = [CChar](repeating: 0, count: 512)
        // An operation without an operation timeout refuses that setting, and nothing changes.
        _ = rd_kafka_AdminOptions_set_operation_timeout(options, ms, &errorText, errorText.count)
        _ = rd_kafka_AdminOptions_set_request_timeout(options, ms, &errorText, errorText.count)
        send(options, queue)
        guard let answer = rd_kafka_queue_poll(queue, Int32(clamping: Int64(ms) + 1000)) else {
            throw KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT, message: "\(what): no answer")
        }
        defer { rd_kafka_event_destroy(answer) }
        try KafkaError.check(rd_kafka_event_error(answer), what)
        return try read(answer)
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
