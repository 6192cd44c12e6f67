/// A record's timestamp and what it means.
public struct KafkaTimestamp: Sendable, Hashable {
    /// Who set the timestamp.
    public enum Kind: Sendable, Hashable {
        /// The producer set it (`CreateTime`).
        case createTime
        /// The broker set it when it appended the record (`LogAppendTime`).
        case logAppendTime
    }

    /// Milliseconds since the Unix epoch.
    public var milliseconds: Int64
    /// Who set it.
    public var kind: Kind

    /// Creates a timestamp.
    public init(milliseconds: Int64, kind: Kind) {
        self.milliseconds = milliseconds
        self.kind = kind
    }
}
