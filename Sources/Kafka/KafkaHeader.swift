import NIOCore

/// A Kafka record header: a name and optional bytes.
public struct KafkaHeader: Sendable, Hashable {
    /// The header's name.
    public var key: String
    /// The header's value; nil is a header without a value.
    public var value: ByteBuffer?

    /// A header with raw bytes.
    public init(key: String, value: ByteBuffer?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is UTF-8 text.
    public init(key: String, value: String) {
        self.init(key: key, value: ByteBuffer(string: value))
    }

    /// The value decoded as UTF-8, if there is one.
    public var stringValue: String? { value.map { String(buffer: $0) } }
}

extension Array where Element == KafkaHeader {
    /// The value of the first header with this name, as UTF-8 text.
    public func string(for key: String) -> String? {
        first { $0.key == key }?.stringValue
    }
}
