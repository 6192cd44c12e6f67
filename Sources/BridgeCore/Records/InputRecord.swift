import NIOCore

/// A consumed record as the pure half of the worker reads it. The worker's Kafka records
/// conform; tests make their own.
public protocol InputRecord {
    /// The topic it was read from.
    var topic: String { get }
    /// The partition it was read from.
    var partition: Int32 { get }
    /// Its offset in the partition.
    var offset: Int64 { get }
    /// The key; nil for a null key.
    var key: ByteBuffer? { get }
    /// The value; nil for a null value.
    var value: ByteBuffer? { get }
    /// The CreateTime in milliseconds, when the record has one.
    var createTime: Int64? { get }
    /// The value of the first header with this name, as UTF-8 text.
    func header(_ name: String) -> String?
}

extension InputRecord {
    /// `topic[partition]@offset`, for errors and logs.
    var position: String { RecordFields.position(topic: topic, partition: partition, offset: offset) }
}

/// A record held in memory: for tests, benchmarks, and reading back what was written.
public struct InMemoryRecord: InputRecord, Sendable {
    /// The topic it was read from.
    public var topic: String
    /// The partition it was read from.
    public var partition: Int32
    /// Its offset in the partition.
    public var offset: Int64
    /// The key; nil for a null key.
    public var key: ByteBuffer?
    /// The value; nil for a null value.
    public var value: ByteBuffer?
    /// The CreateTime in milliseconds, when it has one.
    public var createTime: Int64?
    /// Headers by name.
    public var headers: [String: String]

    /// Creates a record.
    public init(
        topic: String, partition: Int32 = 0, offset: Int64 = 0, key: ByteBuffer? = nil, value: ByteBuffer?,
        createTime: Int64? = nil, headers: [String: String] = [:]
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.createTime = createTime
        self.headers = headers
    }

    /// The value of the header named `name`.
    public func header(_ name: String) -> String? { headers[name] }
}
