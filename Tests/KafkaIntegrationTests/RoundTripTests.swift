import BridgeCore
import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

@Suite("Produce and consume on a real broker", .needsBroker, .timeLimit(.minutes(2)))
struct RoundTripTests {
    @Test("keys, values, headers and explicit timestamps survive the round trip")
    func roundTrip() async throws {
        let topic = try await TestBroker.createTopic("roundtrip", partitions: 2)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let fortyDaysAgo = now - 40 * 24 * 3600 * 1000
        let sent = [
            ProducerRecord(
                topic: topic, partition: .explicit(0), key: ByteBuffer(string: "token-a"),
                value: ByteBuffer(string: #"{"a":1}"#),
                headers: [KafkaHeader(key: "kind", value: "message"), KafkaHeader(key: "message-id", value: "m-1")],
                timestamp: fortyDaysAgo),
            ProducerRecord(
                topic: topic, partition: .explicit(0), key: nil, value: ByteBuffer(string: "no key"), timestamp: now),
            ProducerRecord(
                topic: topic, partition: .explicit(1), key: ByteBuffer(string: "token-b"), value: nil,
                headers: [
                    KafkaHeader(key: "empty", value: nil), KafkaHeader(key: "dup", value: "1"),
                    KafkaHeader(key: "dup", value: "2"),
                ],
                timestamp: now - 1),
            ProducerRecord(
                topic: topic, partition: .explicit(1), key: ByteBuffer(), value: ByteBuffer(), timestamp: now - 2),
        ]
        let producer = try TestBroker.producer()
        let reports = try await producer.send(sent)
        try await producer.close()
        try reports.throwFirstError()
        #expect(reports.map(\.partition) == [0, 0, 1, 1])
        #expect(reports.map(\.offset) == [0, 1, 0, 1])
        #expect(reports.allSatisfy { $0.topic == topic })

        let received = try await TestBroker.readAll([TopicPartition(topic, 0), TopicPartition(topic, 1)])
            .sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
        try #require(received.count == sent.count)
        for (record, original) in zip(received, sent) {
            #expect(record.topic == topic)
            #expect(record.key == original.key)
            #expect(record.value == original.value)
            #expect(record.headers == original.headers)
            #expect(record.timestamp == KafkaTimestamp(milliseconds: original.timestamp ?? -1, kind: .createTime))
        }
    }

    @Test("records given as pointers into one buffer arrive whole: null and empty stay distinct, headers in order")
    func viewsRoundTrip() async throws {
        let topic = try await TestBroker.createTopic("views", partitions: 2)
        // key, value, header values, partition, timestamp; nil is null.
        let sent: [(String?, String?, [String], Int32?, Int64)] = [
            ("token-a", #"{"a":1}"#, ["message", "m-1"], 0, 1_700_000_000_000),
            (nil, "no key", [], 0, 1_700_000_000_001),
            ("token-b", nil, ["", "2"], 1, 1_700_000_000_002),
            ("", "", [], 1, 1_700_000_000_003),
        ]
        let names: [StaticString] = ["kind", "message-id"]
        let producer = try TestBroker.producer()
        let handle = try producer.topic(topic)
        let deliveries = PendingDeliveries(count: sent.count) { _ in topic }
        for (index, (key, value, headerValues, partition, timestamp)) in sent.enumerated() {
            // One buffer, as the bridge's outputs are: key, then value, then header values.
            let buffer = Array(((key ?? "") + (value ?? "") + headerValues.joined()).utf8)
            try buffer.withUnsafeBytes { bytes in
                var offset = 0
                func take(_ text: String?) -> UnsafeRawBufferPointer? {
                    guard let text else { return nil }
                    defer { offset += text.utf8.count }
                    return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + text.utf8.count])
                }
                let keyBytes = take(key)
                let valueBytes = take(value)
                let headers = zip(names, headerValues).map {
                    ProducerRecordView.Header(name: $0, value: take($1) ?? UnsafeRawBufferPointer(start: nil, count: 0))
                }
                try headers.withUnsafeBufferPointer { headers in
                    let view = ProducerRecordView(
                        partition: partition, key: keyBytes, value: valueBytes, headers: headers, timestamp: timestamp)
                    try producer.produce(view, to: handle, deliveries: deliveries, index: index)
                }
            }
        }
        try (await deliveries.reports()).throwFirstError()
        try await producer.close()

        let received = try await TestBroker.readAll([TopicPartition(topic, 0), TopicPartition(topic, 1)])
            .sorted { ($0.partition, $0.offset) < ($1.partition, $1.offset) }
        try #require(received.count == sent.count)
        for (record, (key, value, headerValues, partition, timestamp)) in zip(received, sent) {
            #expect(record.key.map(Array.init(buffer:)) == key.map { Array($0.utf8) })
            #expect(record.value.map(Array.init(buffer:)) == value.map { Array($0.utf8) })
            #expect(record.headers == zip(names, headerValues).map { KafkaHeader(key: "\($0)", value: $1) })
            #expect(
                record.partition == partition
                    && record.timestamp == KafkaTimestamp(milliseconds: timestamp, kind: .createTime))
        }
    }

    @Test("keyed records land where the Java client's murmur2 partitioner puts them")
    func keyPartitioning() async throws {
        let topic = try await TestBroker.createTopic("murmur2", partitions: 4)
        // Partitions the Java client computes: Utils.toPositive(Utils.murmur2(key)) % 4.
        let expected: [(String, Int32)] = [("a", 0), ("b", 0), ("token-1", 1), ("device-42", 1), ("", 1)]
        let producer = try TestBroker.producer()
        let reports = try await producer.send(
            expected.map { ProducerRecord(topic: topic, key: ByteBuffer(string: $0.0), value: ByteBuffer()) })
        try await producer.close()
        try reports.throwFirstError()
        #expect(reports.map(\.partition) == expected.map(\.1))
    }

    @Test("Murmur2Partitioner agrees with librdkafka's partitioner on many keys")
    func partitionerAgreesWithLibrdkafka() async throws {
        let topic = try await TestBroker.createTopic("murmur2-many", partitions: 7)
        let keys = (0..<300).map { Array("device-\($0)-\(String(repeating: "x", count: $0 % 9))".utf8) }
        let producer = try TestBroker.producer()
        let reports = try await producer.send(
            keys.map { ProducerRecord(topic: topic, key: ByteBuffer(bytes: $0), value: ByteBuffer()) })
        try await producer.close()
        try reports.throwFirstError()
        #expect(reports.map(\.partition) == keys.map { Murmur2Partitioner.partition(of: $0, partitions: 7) })
    }
}
