import FCMTranslation

/// The input record a changelog record came from, in the changelog record's `input` header as
/// `topic:partition:offset` (the form of a forward's `source`). A restore keeps a record only
/// when the group has committed its input (``CommittedInputs``).
public struct ChangelogInput: Sendable, Hashable {
    /// The name of the header.
    public static let headerName: StaticString = "input"

    /// The input's topic.
    public var topic: String
    /// The input's partition.
    public var partition: Int32
    /// The input's offset.
    public var offset: Int64

    /// The input at `offset` of `topic`'s `partition`.
    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// The place of `record`.
    init(of record: some InputRecord) {
        self.init(topic: record.topic, partition: record.partition, offset: record.offset)
    }

    /// Writes `topic:partition:offset`.
    func write(to output: inout ByteWriter) {
        output.append(utf8: topic)
        output.append(UInt8(ascii: ":"))
        JSONOutput.writeInteger(Int64(partition), to: &output)
        output.append(UInt8(ascii: ":"))
        JSONOutput.writeInteger(offset, to: &output)
    }

    /// The topic's bytes, partition and offset a header value names, read in place; nil when it
    /// is not of the form `topic:partition:offset` (a topic name has no colon).
    static func parse(_ value: UnsafeRawBufferPointer) -> (
        topic: UnsafeRawBufferPointer, partition: Int32, offset: Int64
    )? {
        let colon = UInt8(ascii: ":")
        guard let offsetColon = value.lastIndex(of: colon), offsetColon > 0,
            let partitionColon = value[..<offsetColon].lastIndex(of: colon), partitionColon > 0,
            let partition = integer(value[(partitionColon + 1)..<offsetColon]).flatMap(Int32.init(exactly:)),
            let offset = integer(value[(offsetColon + 1)...]), partition >= 0, offset >= 0
        else { return nil }
        return (UnsafeRawBufferPointer(rebasing: value[..<partitionColon]), partition, Int64(offset))
    }

    private static func integer(_ bytes: Slice<UnsafeRawBufferPointer>) -> Int? {
        DecimalInteger.parse(UnsafeRawBufferPointer(rebasing: bytes).assumingMemoryBound(to: UInt8.self))
    }
}
