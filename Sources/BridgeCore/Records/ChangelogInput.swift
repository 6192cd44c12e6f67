import FCMTranslation

/// The input record a changelog record came from, in the changelog record's `input` header as
/// `<topic>:<partition>:<offset>`, the topic as the letter of its role (``Topic``), so that the
/// header stays a few bytes whatever the topics are named. A restore keeps a record only when
/// the group has committed its input (``CommittedInputs``).
public struct ChangelogInput: Sendable, Hashable {
    /// The name of the header.
    public static let headerName: StaticString = "input"
    /// ``headerName`` as a `String`, for lookups.
    public static let headerNameText = "\(headerName)"

    /// An input topic, by the role it has for the worker.
    public enum Topic: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The contract's send topic: `s`.
        case send = 0x73
        /// The contract's presence topic: `p`.
        case presence = 0x70
        /// The contract's subscriptions topic: `u`.
        case subscriptions = 0x75
        /// The worker's repartition topic: `r`.
        case repartition = 0x72

        /// The letter.
        public var description: String { String(UnicodeScalar(rawValue)) }
    }

    /// The input's topic.
    public var topic: Topic
    /// The input's partition.
    public var partition: Int32
    /// The input's offset.
    public var offset: Int64

    /// The input at `offset` of `topic`'s `partition`.
    public init(_ topic: Topic, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }

    /// `record`, read from the `topic` input.
    init(_ topic: Topic, of record: some InputRecord) {
        self.init(topic, partition: record.partition, offset: record.offset)
    }

    /// Writes `<topic>:<partition>:<offset>`.
    func write(to output: inout ByteWriter) {
        output.append(topic.rawValue)
        output.append(UInt8(ascii: ":"))
        JSONOutput.writeInteger(Int64(partition), to: &output)
        output.append(UInt8(ascii: ":"))
        JSONOutput.writeInteger(offset, to: &output)
    }

    /// The input a header value names, read in place; nil when it is not of the form
    /// `<topic>:<partition>:<offset>` with a known topic letter and numbers in range.
    static func parse(_ value: UnsafeRawBufferPointer) -> ChangelogInput? {
        guard value.count >= 5, value[1] == UInt8(ascii: ":"), let topic = Topic(rawValue: value[0]),
            let colon = value[2...].firstIndex(of: UInt8(ascii: ":")),
            let partition = integer(value[2..<colon]).flatMap({ Int32(exactly: $0) }),
            let offset = integer(value[(colon + 1)...]), partition >= 0, offset >= 0
        else { return nil }
        return ChangelogInput(topic, partition: partition, offset: Int64(offset))
    }

    private static func integer(_ bytes: Slice<UnsafeRawBufferPointer>) -> Int? {
        DecimalInteger.parse(UnsafeRawBufferPointer(rebasing: bytes).assumingMemoryBound(to: UInt8.self))
    }
}
