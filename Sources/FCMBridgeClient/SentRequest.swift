import Kafka

/// Where a send request was written, which names its messages: the bridge's message id of a
/// request's device number `index` is `<partition>:<offset>:<index>`, the id every status and
/// inbox record of that message carries.
public struct SentRequest: Sendable, Hashable {
    /// The send topic's partition the request was written to.
    public var partition: Int32
    /// Its offset in that partition.
    public var offset: Int64

    /// Creates the position of a written request.
    public init(partition: Int32, offset: Int64) {
        self.partition = partition
        self.offset = offset
    }

    /// Where the producer's `report` says the request was written.
    init(_ report: DeliveryReport) {
        self.init(partition: report.partition, offset: report.offset)
    }

    /// The message id of the request's device number `index`: 0 for a request to one device,
    /// and for a topic or condition send (its `fanned_out` status; each member's copy has this
    /// id, `/` and a hash of its token); a legacy `registration_ids` request's token at `index`.
    public func messageID(ofDevice index: Int = 0) -> String {
        "\(partition):\(offset):\(index)"
    }
}
