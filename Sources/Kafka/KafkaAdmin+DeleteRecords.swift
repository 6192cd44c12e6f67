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
        return try await call("delete records") { try $0.deleteRecords(before: offsets, timeout: timeout) }
    }
}
