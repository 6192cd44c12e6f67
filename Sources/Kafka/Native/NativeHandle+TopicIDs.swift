import CRDKafka

extension NativeHandle {
    /// The topic id of the topic `name`; nil when the cluster does not know the topic or gives no
    /// ids (a zero id). Any other failure of the topic's description throws.
    func topicID(of name: String, timeout: Duration) throws -> TopicID? {
        // librdkafka copies the name into the collection.
        let collection = name.withCString { name in
            var names: [UnsafePointer<CChar>?] = [name]
            return rd_kafka_TopicCollection_of_topic_names(&names, 1)
        }
        defer { rd_kafka_TopicCollection_destroy(collection) }
        return try request(RD_KAFKA_ADMIN_OP_DESCRIBETOPICS, "describe topics", timeout: timeout) { options, queue in
            rd_kafka_DescribeTopics(pointer, collection, options, queue)
        } read: { answer in
            var count = 0
            guard let result = rd_kafka_event_DescribeTopics_result(answer),
                let described = rd_kafka_DescribeTopics_result_topics(result, &count), count > 0,
                let description = described[0]
            else { return nil }
            // The error belongs to the description: read, never destroyed here.
            if let error = rd_kafka_TopicDescription_error(description) {
                let code = rd_kafka_error_code(error)
                if code == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART { return nil }
                let text = rd_kafka_error_string(error).map { String(cString: $0) } ?? ""
                throw KafkaError(code, message: "describe topic \(name): \(text)")
            }
            guard let id = rd_kafka_TopicDescription_topic_id(description) else { return nil }
            let topicID = TopicID(
                high: UInt64(bitPattern: rd_kafka_Uuid_most_significant_bits(id)),
                low: UInt64(bitPattern: rd_kafka_Uuid_least_significant_bits(id)))
            return topicID.isZero ? nil : topicID
        }
    }
}
