import Kafka
import NIOCore

/// Small helpers for the bridge's own record formats (repartition and changelog).
enum RecordFields {
    /// An integer header value.
    static func header(_ key: String, _ value: Int64) -> KafkaHeader { KafkaHeader(key: key, value: String(value)) }

    /// The integer value of a header, if present and a number.
    static func integer(_ key: String, in headers: [KafkaHeader]) -> Int64? {
        headers.string(for: key).flatMap { Int64($0) }
    }

    /// A buffer's bytes, or nil.
    static func bytes(_ buffer: ByteBuffer?) -> [UInt8]? {
        buffer.map { Array($0.readableBytesView) }
    }

    /// A buffer's text, or nil.
    static func text(_ buffer: ByteBuffer?) -> String? {
        buffer.map { String(buffer: $0) }
    }
}

/// A bridge-internal record that cannot be read: the topic holds something the bridge did not write.
struct MalformedRecord: Error, CustomStringConvertible {
    var description: String
}
