import CRDKafka

extension KafkaAdmin {
    /// Deletes every record before each given offset (DeleteRecords): the partitions' log start
    /// moves up to it. Returns each partition's new low watermark. A broker that does not
    /// support it answers with an error (``KafkaError``), which callers should take as "not
    /// supported here" rather than retry at once.
    @discardableResult
    public func deleteRecords(before offsets: [TopicPartitionOffset], timeout: Duration = .seconds(10)) async throws
        -> [TopicPartitionOffset]
    {
        guard !offsets.isEmpty else { return [] }
        let ms = Int32(timeout.milliseconds)
        try client.checkServing("delete records")
        return try await client.blocking { handle in
            let list = NativePartitionList(offsets)
            var request: OpaquePointer? = rd_kafka_DeleteRecords_new(list.pointer)
            defer { rd_kafka_DeleteRecords_destroy(request) }
            return try Self.request(RD_KAFKA_ADMIN_OP_DELETERECORDS, "delete records", handle: handle, timeout: ms) {
                options, queue in
                rd_kafka_DeleteRecords(handle, &request, 1, options, queue)
            } read: { answer in
                guard let result = rd_kafka_event_DeleteRecords_result(answer),
                    let partitions = rd_kafka_DeleteRecords_result_offsets(result)
                else { return [] }
                let entries = NativePartitionList.copy(of: UnsafeMutablePointer(mutating: partitions))
                try entries.checkErrors("delete records")
                return entries.entries.map { TopicPartitionOffset($0.partition, offset: $0.offset) }
            }
        }
    }
}
