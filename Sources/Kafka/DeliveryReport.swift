/// librdkafka's report on one sent record: where it landed, or why it did not.
public struct DeliveryReport: Sendable, Hashable {
    /// The topic the record was sent to.
    public var topic: String
    /// The partition it landed in (-1 when it failed before one was chosen).
    public var partition: Int32
    /// Its offset in the partition (-1 when unknown or failed).
    public var offset: Int64
    /// Why the record was not delivered; nil when it was.
    public var error: KafkaError?

    /// Creates a report.
    public init(topic: String, partition: Int32, offset: Int64, error: KafkaError?) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.error = error
    }
}

extension Array where Element == DeliveryReport {
    /// Throws the first delivery error among the reports.
    public func throwFirstError() throws {
        if let error = lazy.compactMap(\.error).first { throw error }
    }
}
