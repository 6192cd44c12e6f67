/// A changelog record read in place, as ``ChangelogCodec/decode(_:header:)`` reads it: the
/// bytes are valid only during that call.
public struct ChangelogRecordView {
    /// The record's topic, partition and offset, for errors.
    public var topic: String
    /// See ``topic``.
    public var partition: Int32
    /// See ``topic``.
    public var offset: Int64
    /// The key; nil for a null key.
    public var key: UnsafeRawBufferPointer?
    /// The value; nil for a tombstone.
    public var value: UnsafeRawBufferPointer?
    /// The record's CreateTime in milliseconds, when it has one.
    public var createTime: Int64?

    /// A view of a record's parts.
    public init(
        topic: String, partition: Int32, offset: Int64, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?,
        createTime: Int64?
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.createTime = createTime
    }

    /// `topic[partition]@offset`.
    var position: String { RecordFields.position(topic: topic, partition: partition, offset: offset) }
}
