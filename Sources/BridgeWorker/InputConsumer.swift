import Kafka

/// What the worker's loop and committer need of the consumer of their inputs: the loop is
/// written against this, not against ``KafkaConsumer``, so that its logic is tested without a
/// broker.
protocol InputConsumer: Sendable {
    /// What has arrived, up to `maxRecords` events, waiting up to `timeout` for the first.
    func poll(maxRecords: Int, timeout: Duration) async throws -> [ConsumerEvent]
    /// The group's committed offsets of `partitions`.
    func committed(_ partitions: [TopicPartition], timeout: Duration) async throws -> [TopicPartitionOffset]
    /// Commits offsets (at least once).
    func commit(_ offsets: [TopicPartitionOffset]) async throws
    /// The group generation a transaction's offsets belong to (exactly once).
    func groupMetadata() throws -> ConsumerGroupMetadata
    /// The partitions assigned to this member.
    func assignment() throws -> [TopicPartition]
    /// Stops fetching `partitions`: a poll returns none of their records until they resume.
    func pause(_ partitions: [TopicPartition]) throws
    /// Fetches `partitions` again, from where their records were last taken; may wait for the
    /// broker (``KafkaConsumer/resume(_:)``).
    func resume(_ partitions: [TopicPartition]) async throws
}

extension KafkaConsumer: InputConsumer {}
