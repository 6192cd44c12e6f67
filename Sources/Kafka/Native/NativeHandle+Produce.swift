import CRDKafka

/// Producing one record.
extension NativeHandle {
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
                return rd_kafka_produceva(pointer, values.baseAddress, count)
            }
        }
        guard let error else { return }
        throw KafkaError(consuming: error)
    }
}
