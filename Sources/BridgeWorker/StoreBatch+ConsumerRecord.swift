import BridgeStore
import Kafka

extension StoreBatch {
    /// Adds a changelog record read from Kafka, with the headers a store keeps.
    mutating func append(_ record: borrowing ConsumerRecordView) {
        append(
            partition: record.partition, key: record.key ?? UnsafeRawBufferPointer(start: nil, count: 0),
            value: record.value, time: record.createTime,
            collapseKey: record.header(StoredHeaders.collapseKeyHeader),
            expiresAt: record.header(StoredHeaders.expiresAtHeader))
    }
}
