/// A record to produce, given as pointers into memory the caller keeps alive for the call;
/// librdkafka copies what it keeps. For producers that write many records into one buffer.
public struct ProducerRecordView {
    /// The partition; nil to partition by key.
    public var partition: Int32?
    /// The key; nil for a null key.
    public var key: UnsafeRawBufferPointer?
    /// The value; nil for a null value.
    public var value: UnsafeRawBufferPointer?
    /// The headers.
    public var headers: UnsafeBufferPointer<Header>
    /// The CreateTime in milliseconds; nil lets librdkafka use now.
    public var timestamp: Int64?

    /// A header: a NUL-terminated name and the value's bytes.
    public struct Header {
        /// The NUL-terminated name.
        public var name: UnsafePointer<CChar>
        /// The value's bytes; nil for a null value.
        public var value: UnsafeRawBufferPointer?

        /// A header whose name is a NUL-terminated C string.
        public init(name: UnsafePointer<CChar>, value: UnsafeRawBufferPointer?) {
            self.name = name
            self.value = value
        }

        /// A header named by a string literal of two or more characters, whose text is stored
        /// NUL-terminated (a single character may be stored as a scalar, without a pointer).
        public init(name: StaticString, value: UnsafeRawBufferPointer?) {
            self.init(name: UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self), value: value)
        }
    }

    /// Creates a view.
    public init(
        partition: Int32?, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?,
        headers: UnsafeBufferPointer<Header>, timestamp: Int64?
    ) {
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }
}
