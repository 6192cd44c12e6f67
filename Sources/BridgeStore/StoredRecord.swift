/// A changelog record to write to its partition's store, copied out of the batch or the
/// restore that read it.
public struct StoredRecord: Sendable {
    /// The changelog partition.
    public var partition: Int32
    public var key: [UInt8]
    /// Nil for a tombstone.
    public var value: [UInt8]?
    /// The record's CreateTime in milliseconds, if it has one.
    public var time: Int64?
    /// Its `collapse-key` header, which a waiting message written by 0.10 needs.
    public var collapseKey: [UInt8]?
    /// Its `expires-at` header, which a waiting message written by 0.10 needs.
    public var expiresAt: [UInt8]?

    public init(
        partition: Int32, key: [UInt8], value: [UInt8]?, time: Int64?, collapseKey: [UInt8]? = nil,
        expiresAt: [UInt8]? = nil
    ) {
        self.partition = partition
        self.key = key
        self.value = value
        self.time = time
        self.collapseKey = collapseKey
        self.expiresAt = expiresAt
    }

    /// The headers a store keeps, by name.
    public static let collapseKeyHeader = "collapse-key"
    /// See ``collapseKeyHeader``.
    public static let expiresAtHeader = "expires-at"
}
