import BridgeConfig
import FCMTranslation

/// The topics the worker writes to.
public enum OutputTopic: Int, CaseIterable, Sendable {
    /// The contract's inbox topic.
    case inbox
    /// The contract's status topic.
    case status
    /// The contract's dead letter topic.
    case deadLetters
    /// The worker's repartition topic.
    case repartition
    /// The worker's changelog topic.
    case changelog

    /// The topic's name in `configuration`.
    public func name(in configuration: BridgeConfiguration) -> String {
        switch self {
        case .inbox: configuration.topics.inbox
        case .status: configuration.topics.status
        case .deadLetters: configuration.topics.deadLetters
        case .repartition: configuration.repartitionTopic
        case .changelog: configuration.changelogTopic
        }
    }
}

/// The records a run of input records makes, written back to back into one buffer: keys,
/// values and header values are ranges of it, so that a record costs no allocation of its own
/// and the producer reads it in place.
///
/// A record is written in order: ``begin(_:partition:timestamp:)``, then its key and value, each
/// at most once, and its headers, in any order with them.
public struct OutputRecords: ~Copyable {
    /// Where one record's parts are.
    public struct Record: Sendable {
        /// Where the record goes.
        public var topic: OutputTopic
        /// The partition; nil to partition by key.
        public var partition: Int32?
        /// The key's bytes; nil for a null key.
        public var key: Range<Int>?
        /// The value's bytes; nil for a null value.
        public var value: Range<Int>?
        /// The record's headers: a range of ``headers``.
        public var headers: Range<Int>
        /// The CreateTime in milliseconds; nil for none.
        public var timestamp: Int64?
    }

    /// A header: a static name and its value's bytes.
    public struct Header: Sendable {
        /// The header's name.
        public var name: StaticString
        /// The value's bytes.
        public var value: Range<Int>
    }

    private var buffer = ByteWriter(capacity: 64 * 1024)
    /// The records, in the order they were written.
    public private(set) var records: [Record] = []
    /// Every record's headers, back to back.
    public private(set) var headers: [Header] = []
    /// The input whose outputs are being written, named by each changelog record.
    var input: ChangelogInput? {
        didSet { inputHeaderValue = nil }
    }
    /// Where the input's name was written for its first changelog record: the later ones share it.
    private var inputHeaderValue: Range<Int>?
    /// What the records are, counted as they are written; emptied with them.
    public internal(set) var tally = OutputTally()

    /// No records.
    public init() {}

    /// Records written.
    public var count: Int { records.count }

    /// Bytes written (keys, values and header values).
    public var byteCount: Int { buffer.count }

    /// Forgets every record, keeping the memory for the next run.
    public mutating func removeAll() {
        inputHeaderValue = nil
        buffer.truncate(to: 0)
        records.removeAll(keepingCapacity: true)
        headers.removeAll(keepingCapacity: true)
        tally = OutputTally()
    }

    /// Calls `body` with the buffer the records' ranges point into.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try buffer.withUnsafeBytes(body)
    }

    /// Starts a record with no key, value or headers yet.
    mutating func begin(_ topic: OutputTopic, partition: Int32? = nil, timestamp: Int64?) {
        tally.wrote(topic)
        records.append(
            Record(
                topic: topic, partition: partition, key: nil, value: nil, headers: headers.endIndex..<headers.endIndex,
                timestamp: timestamp))
    }

    /// Writes the current record's key.
    mutating func key(_ write: (inout ByteWriter) -> Void) {
        let range = written(write)
        records[records.count - 1].key = range
    }

    /// Writes the current record's value.
    mutating func value(_ write: (inout ByteWriter) -> Void) {
        let range = written(write)
        records[records.count - 1].value = range
    }

    /// Adds a header to the current record.
    mutating func header(_ name: StaticString, _ write: (inout ByteWriter) -> Void) {
        append(Header(name: name, value: written(write)))
    }

    /// Adds a header `name` naming ``input`` (none without one), written once per input.
    mutating func inputHeader(_ name: StaticString) {
        guard let input else { return }
        if let value = inputHeaderValue {
            append(Header(name: name, value: value))
        } else {
            header(name) { input.write(to: &$0) }
            inputHeaderValue = headers.last?.value
        }
    }

    /// Adds a header whose value is text.
    mutating func header(_ name: StaticString, text: String) {
        header(name) { $0.append(utf8: text) }
    }

    /// Adds a header whose value is a decimal integer.
    mutating func header(_ name: StaticString, integer: Int64) {
        header(name) { JSONOutput.writeInteger(integer, to: &$0) }
    }

    /// Moves the records for `topic` to the end of `other`, keeping their order; the others stay.
    public mutating func move(_ topic: OutputTopic, to other: inout OutputRecords) {
        guard records.contains(where: { $0.topic == topic }) else { return }
        buffer.withUnsafeBytes { bytes in
            for record in records where record.topic == topic {
                other.begin(record.topic, partition: record.partition, timestamp: record.timestamp)
                if let key = record.key { other.key { $0.append(UnsafeRawBufferPointer(rebasing: bytes[key])) } }
                if let value = record.value {
                    other.value { $0.append(UnsafeRawBufferPointer(rebasing: bytes[value])) }
                }
                for header in headers[record.headers] {
                    other.header(header.name) { $0.append(UnsafeRawBufferPointer(rebasing: bytes[header.value])) }
                }
            }
        }
        records.removeAll { $0.topic == topic }
    }

    /// Adds `header` to the current record.
    @inline(__always)
    private mutating func append(_ header: Header) {
        headers.append(header)
        records[records.count - 1].headers = records[records.count - 1].headers.lowerBound..<headers.endIndex
    }

    private mutating func written(_ write: (inout ByteWriter) -> Void) -> Range<Int> {
        let start = buffer.count
        write(&buffer)
        return start..<buffer.count
    }
}

extension OutputRecords {
    /// A record's parts copied out: for tests and for reading a record back.
    public struct Copy: Sendable {
        /// Where the record goes.
        public var topic: OutputTopic
        /// The partition; nil to partition by key.
        public var partition: Int32?
        /// The key; nil for a null key.
        public var key: [UInt8]?
        /// The value; nil for a null value.
        public var value: [UInt8]?
        /// The headers, in order.
        public var headers: [(name: String, value: [UInt8])]
        /// The CreateTime in milliseconds; nil for none.
        public var timestamp: Int64?

        /// The value of the first header named `name`.
        public func header(_ name: String) -> [UInt8]? {
            headers.first { $0.name == name }?.value
        }
    }

    /// A copy of the record at `index`.
    public func copy(at index: Int) -> Copy {
        let record = records[index]
        return withUnsafeBytes { bytes in
            Copy(
                topic: record.topic, partition: record.partition,
                key: record.key.map { Array(bytes[$0]) }, value: record.value.map { Array(bytes[$0]) },
                headers: headers[record.headers].map { ("\($0.name)", Array(bytes[$0.value])) },
                timestamp: record.timestamp
            )
        }
    }

    /// Copies of every record, in order.
    public var copies: [Copy] {
        var copies: [Copy] = []
        for index in records.indices { copies.append(copy(at: index)) }
        return copies
    }
}
