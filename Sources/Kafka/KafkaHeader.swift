/// A Kafka record header: a name and optional bytes.
public struct KafkaHeader: Sendable, Hashable {
    /// The header's name.
    public var key: String
    /// The header's value; nil is a header without a value.
    public var value: [UInt8]?

    /// A header with raw bytes.
    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    /// A header whose value is UTF-8 text.
    public init(key: String, value: String) {
        self.init(key: key, value: Array(value.utf8))
    }

    /// The value decoded as UTF-8, if there is one.
    public var stringValue: String? { value.map { String(decoding: $0, as: UTF8.self) } }
}

extension Array where Element == KafkaHeader {
    /// The value of the first header with this name, as UTF-8 text.
    public func string(for key: String) -> String? {
        first { $0.key == key }?.stringValue
    }
}
