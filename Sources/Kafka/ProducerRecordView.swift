import CRDKafka

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

extension KafkaProducer {
    /// The handle to produce to `name` with ``produce(_:to:deliveries:index:)``.
    public func topic(_ name: String) throws -> TopicHandle {
        try topics.handle(for: name, producer: client.handle)
    }

    /// Hands one record to librdkafka, which copies it; its report becomes record `index` of
    /// `deliveries`. Throws librdkafka's error, `RD_KAFKA_RESP_ERR__QUEUE_FULL` (see
    /// ``KafkaError/isQueueFull``) when its queue has no room: call again after a while.
    public func produce(_ record: ProducerRecordView, to topic: TopicHandle, deliveries: PendingDeliveries, index: Int)
        throws(KafkaError)
    {
        try produce(record, to: topic, opaque: deliveries.opaque(for: index))
    }

    /// Hands one record to librdkafka, which copies it, with no delivery report to wait for: for
    /// a transaction, whose commit fails when any of its records was not delivered. Throws as
    /// ``produce(_:to:deliveries:index:)`` does.
    public func produceInTransaction(_ record: ProducerRecordView, to topic: TopicHandle) throws(KafkaError) {
        try produce(record, to: topic, opaque: nil)
    }

    /// Calls `rd_kafka_produceva` with `opaque` as the record's delivery-report opaque (none: no
    /// report is delivered anywhere).
    func produce(_ record: ProducerRecordView, to topic: TopicHandle, opaque: UnsafeMutableRawPointer?)
        throws(KafkaError)
    {
        // Empty bytes point somewhere: librdkafka reads a null address as no value at all.
        var emptyByte: UInt8 = 0
        let error: OpaquePointer? = withUnsafeMutableBytes(of: &emptyByte) { empty in
            withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 7 + record.headers.count) { values in
                func address(of bytes: UnsafeRawBufferPointer) -> UnsafeMutableRawPointer {
                    UnsafeMutableRawPointer(mutating: bytes.baseAddress) ?? empty.baseAddress.unsafelyUnwrapped
                }
                var count = 0
                func add(_ type: rd_kafka_vtype_t, _ set: (inout rd_kafka_vu_t) -> Void) {
                    values[count] = rd_kafka_vu_t()
                    values[count].vtype = type
                    set(&values[count])
                    count += 1
                }
                add(RD_KAFKA_VTYPE_RKT) { $0.u.rkt = topic.pointer }
                add(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = record.partition ?? RD_KAFKA_PARTITION_UA }
                add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
                if let opaque { add(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = opaque } }
                if let key = record.key {
                    add(RD_KAFKA_VTYPE_KEY) {
                        $0.u.mem.ptr = address(of: key)
                        $0.u.mem.size = key.count
                    }
                }
                if let value = record.value {
                    add(RD_KAFKA_VTYPE_VALUE) {
                        $0.u.mem.ptr = address(of: value)
                        $0.u.mem.size = value.count
                    }
                }
                for header in record.headers {
                    add(RD_KAFKA_VTYPE_HEADER) {
                        $0.u.header.name = header.name
                        $0.u.header.val = header.value.map { UnsafeRawPointer(address(of: $0)) }
                        $0.u.header.size = header.value?.count ?? 0
                    }
                }
                if let timestamp = record.timestamp { add(RD_KAFKA_VTYPE_TIMESTAMP) { $0.u.i64 = timestamp } }
                return rd_kafka_produceva(client.handle, values.baseAddress, count)
            }
        }
        guard let error else { return }
        throw KafkaError(consuming: error)
    }
}
