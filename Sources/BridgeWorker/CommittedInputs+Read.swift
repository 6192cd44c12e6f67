import BridgeCore
import Kafka

extension CommittedInputs {
    /// The group's committed offsets of every input that feeds the state partitions
    /// `partitions` (`inputs`: each input's kind and topic), read once per restore; with the
    /// repartition partitions' (`stateTopic`'s) among them, which say where the forwards on
    /// their way start.
    static func read(
        feeding partitions: [Int32], inputs: [(topic: ChangelogInput.Topic, name: String)], stateTopic: String,
        from consumer: any InputConsumer, timeout: Duration
    ) async throws -> (CommittedInputs, forwards: [TopicPartitionOffset]) {
        guard !partitions.isEmpty else { return (CommittedInputs([:]), []) }
        let inputs = partitions.flatMap { partition in
            inputs.map { (input: CommittedInputs.Input($0.topic, partition: partition), name: $0.name) }
        }
        let offsets = try await consumer.committed(
            inputs.map { TopicPartition($0.name, $0.input.partition) }, timeout: timeout)
        let committed = Dictionary(offsets.map { ($0.topicPartition, $0.offset) }) { first, _ in first }
        return (
            CommittedInputs(
                Dictionary(
                    inputs.map { ($0.input, committed[TopicPartition($0.name, $0.input.partition)] ?? -1) }
                ) { first, _ in first }),
            offsets.filter { $0.topicPartition.topic == stateTopic }
        )
    }
}
