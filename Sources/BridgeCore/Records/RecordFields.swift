import FCMTranslation
import NIOCore

extension InputRecord {
    /// The integer value of a header, if present and a number.
    func integerHeader(_ name: String) -> Int64? {
        header(name).flatMap { Int64($0) }
    }
}

/// Small helpers for reading the bridge's own record formats (repartition and changelog).
enum RecordFields {
    /// A buffer's bytes, or nil.
    static func bytes(_ buffer: ByteBuffer?) -> [UInt8]? {
        buffer.map { Array($0.readableBytesView) }
    }

    /// `topic[partition]@offset`: where a record is, for errors and logs.
    static func position(topic: String, partition: Int32, offset: Int64) -> String {
        "\(topic)[\(partition)]@\(offset)"
    }

    /// A buffer's text, or nil.
    static func text(_ buffer: ByteBuffer?) -> String? {
        buffer.map { String(buffer: $0) }
    }
}

extension ByteWriter {
    /// Appends a buffer's readable bytes.
    mutating func append(_ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { append($0) }
    }

    /// Appends the first `count` readable bytes of a buffer (all of them when it has fewer).
    mutating func append(_ buffer: ByteBuffer, upTo count: Int) {
        buffer.withUnsafeReadableBytes { append(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }
}

/// A bridge-internal record that cannot be read: the topic holds something the bridge did not write.
public struct MalformedRecord: Error, CustomStringConvertible {
    /// What is wrong and where the record is; never its token.
    public var description: String
    /// Whether the record is well formed but of a kind this version does not know: one a newer
    /// version wrote, which must stop a worker rather than be skipped.
    public var isUnknownKind = false

    /// A record that cannot be read for the reason `description` gives.
    public init(description: String, isUnknownKind: Bool = false) {
        self.description = description
        self.isUnknownKind = isUnknownKind
    }
}
