import CRDKafka
import Glibc

extension NativeHandle {
    /// The topic id of each topic in `names` the cluster knows and gives an id for, by name.
    func topicIDs(_ names: [String], timeout: Duration) throws -> [String: TopicID] {
        let copies = names.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { copy in copy.map { UnsafePointer($0) } }
        let collection = pointers.withUnsafeMutableBufferPointer {
            rd_kafka_TopicCollection_of_topic_names($0.baseAddress, $0.count)
        }
        defer { rd_kafka_TopicCollection_destroy(collection) }
        return try request(RD_KAFKA_ADMIN_OP_DESCRIBETOPICS, "describe topics", timeout: timeout) { options, queue in
            rd_kafka_DescribeTopics(pointer, collection, options, queue)
        } read: { answer in
            var count = 0
            guard let result = rd_kafka_event_DescribeTopics_result(answer),
                let described = rd_kafka_DescribeTopics_result_topics(result, &count)
            else { return [:] }
            var ids: [String: TopicID] = [:]
            for index in 0..<count {
                // An unknown topic carries its error; a broker without topic ids gives a zero id.
                guard let description = described[index], rd_kafka_TopicDescription_error(description) == nil,
                    let id = rd_kafka_TopicDescription_topic_id(description)
                else { continue }
                let topicID = TopicID(
                    high: UInt64(bitPattern: rd_kafka_Uuid_most_significant_bits(id)),
                    low: UInt64(bitPattern: rd_kafka_Uuid_least_significant_bits(id)))
                guard !topicID.isZero else { continue }
                ids[String(cString: rd_kafka_TopicDescription_name(description))] = topicID
            }
            return ids
        }
    }
}
