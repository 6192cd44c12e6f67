import Kafka

/// A batch's outputs were not all made durable, so its offsets were not committed.
struct BatchNotCommitted: Error, CustomStringConvertible {
    var cause: any Error
    var offsets: [TopicPartitionOffset]
    var description: String {
        "the batch up to \(offsets) was not committed (\(cause)); a restart resumes from the last commit, with the same message ids"
    }
}
