import CRDKafka
import Logging

/// A topic to create.
public struct NewTopic: Sendable, Hashable {
    /// The topic's name.
    public var name: String
    /// How many partitions it has.
    public var partitions: Int32
    /// How many copies of each partition (-1: the broker's default).
    public var replicationFactor: Int32
    /// Topic configs, such as `cleanup.policy=compact` or `retention.ms=-1`.
    public var configs: [String: String]

    /// Describes a topic to create.
    public init(name: String, partitions: Int32, replicationFactor: Int32 = -1, configs: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.configs = configs
    }
}

/// A topic as the cluster's metadata describes it.
public struct TopicMetadata: Sendable, Hashable {
    /// The topic's name.
    public var name: String
    /// Its partitions' numbers, in order.
    public var partitions: [Int32]
}

/// Cluster administration: creating topics and reading metadata.
public final class KafkaAdmin: Sendable {
    let client: KafkaClient

    /// Creates an admin client.
    public init(configuration: KafkaConfiguration, logger: Logger) throws {
        let properties = configuration.commonProperties.merging(configuration.properties) { $1 }
        client = try KafkaClient(
            type: RD_KAFKA_PRODUCER, properties: properties,
            context: ClientContext(logger: logger, properties: properties))
    }

    /// Creates topics. Topics that exist already are left as they are when `ignoreExisting`;
    /// otherwise they fail with ``KafkaError/topicAlreadyExists``.
    public func createTopics(_ topics: [NewTopic], ignoreExisting: Bool = true, timeout: Duration = .seconds(30))
        async throws
    {
        try client.checkServing("create topics")
        let ms = Int32(timeout.milliseconds)
        try await client.blocking { handle in
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
            try Self.request(RD_KAFKA_ADMIN_OP_CREATETOPICS, "create topics", handle: handle, timeout: ms) {
                options, queue in
                natives.withUnsafeMutableBufferPointer {
                    rd_kafka_CreateTopics(handle, $0.baseAddress, $0.count, options, queue)
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
    }

    /// Inside a blocking call: starts one admin request with `send` (given options with the
    /// timeouts set, and the queue its answer comes to), waits for the answer, checks it for a
    /// request-level error and hands it to `read`, which must not keep it.
    static func request<T>(
        _ operation: rd_kafka_admin_op_t, _ what: String, handle: OpaquePointer, timeout ms: Int32,
        send: (_ options: OpaquePointer?, _ queue: OpaquePointer?) -> Void,
        read: (_ answer: OpaquePointer) throws -> T
    ) throws -> T {
        let queue = rd_kafka_queue_new(handle)
        defer { rd_kafka_queue_destroy(queue) }
        let options = rd_kafka_AdminOptions_new(handle, operation)
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errorText = [CChar](repeating: 0, count: 512)
        // An operation without an operation timeout refuses that setting, and nothing changes.
        _ = rd_kafka_AdminOptions_set_operation_timeout(options, ms, &errorText, errorText.count)
        _ = rd_kafka_AdminOptions_set_request_timeout(options, ms, &errorText, errorText.count)
        send(options, queue)
        guard let answer = rd_kafka_queue_poll(queue, ms + 1000) else {
            throw KafkaError(RD_KAFKA_RESP_ERR__TIMED_OUT, message: "\(what): no answer")
        }
        defer { rd_kafka_event_destroy(answer) }
        try KafkaError.check(rd_kafka_event_error(answer), what)
        return try read(answer)
    }

    /// The metadata of every topic in the cluster.
    public func topics(timeout: Duration = .seconds(10)) async throws -> [TopicMetadata] {
        try client.checkServing("metadata")
        let ms = Int32(timeout.milliseconds)
        return try await client.blocking { handle in
            var metadata: UnsafePointer<rd_kafka_metadata>?
            try KafkaError.check(rd_kafka_metadata(handle, 1, nil, &metadata, ms), "metadata")
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
    }

    /// The metadata of one topic, or nil when the cluster does not have it.
    public func topic(_ name: String, timeout: Duration = .seconds(10)) async throws -> TopicMetadata? {
        try await topics(timeout: timeout).first { $0.name == name }
    }

    /// Stops the admin client's thread; any call after it fails at once with
    /// ``KafkaError/Code/closed``. A second close does nothing.
    public func close() async {
        guard client.beginClose() else { return }
        await client.finishClose()
    }
}
