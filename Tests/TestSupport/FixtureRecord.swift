import Foundation
import NIOCore

@testable import BridgeCore

/// One record of a fixture, as a JSON line: bytes in base64.
struct FixtureRecord: Codable {
    var topic: String
    var partition: Int32
    var key: Data?
    var value: Data?
    var timestamp: Int64?
    var headers: [String: String]

    init(_ record: InMemoryRecord, topic: String) {
        self.topic = topic
        partition = record.partition
        key = record.key.map { Data($0.readableBytesView) }
        value = record.value.map { Data($0.readableBytesView) }
        timestamp = record.createTime
        headers = record.headers
    }

    func record(topic name: String) -> InMemoryRecord {
        InMemoryRecord(
            topic: name, partition: partition, key: key.map { ByteBuffer(bytes: $0) },
            value: value.map { ByteBuffer(bytes: $0) }, createTime: timestamp, headers: headers)
    }
}
