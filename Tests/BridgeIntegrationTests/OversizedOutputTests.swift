import BridgeConfig
import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

/// No output is larger than the producer accepts, so none is refused and silently left out of
/// a committed transaction, and a large input cannot stop its partition.
@Suite("Oversized outputs", .needsBroker, .timeLimit(.minutes(2)))
struct OversizedOutputTests {
    @Test(
        "a dead letter over the producer's message.max.bytes lands cut, and the partition moves on",
        arguments: [BridgeConfiguration.Delivery.exactlyOnce, .atLeastOnce])
    func deadLetterOverLimit(delivery: BridgeConfiguration.Delivery) async throws {
        let fixture = try await BridgeFixture.make(partitions: 1, delivery: delivery) {
            $0.kafka.producerProperties["message.max.bytes"] = "80000"
        }
        let worker = fixture.startWorker()
        let value = "{" + String(repeating: "x", count: 199_999)
        try await fixture.produce([
            ProducerRecord(
                topic: fixture.configuration.topics.send, key: ByteBuffer(string: "big"),
                value: ByteBuffer(string: value),
                timestamp: testEpoch)
        ])
        let token = uniqueToken("after")
        try await fixture.send([Requests.legacy(token)], key: token, at: testEpoch + 1)
        let reader = try await fixture.outputs()
        try await reader.waitUntil("the dead letter and the next request's status") {
            !$0.deadLetters.isEmpty && !$0.statuses(of: token).isEmpty
        }
        try await worker.stop()
        let letter = try #require(reader.deadLetters.first)
        #expect(letter.key == "big")
        #expect(letter.value.map { $0.count < 80_000 && Array(value.utf8.prefix($0.count)) == $0 } == true)
        #expect(
            letter.headers.first { $0.key == "original-value-bytes" }.flatMap {
                $0.value.map { String(buffer: $0) }
            } == "200000")
        #expect(reader.statuses(of: token).first?.type == "queued")
    }
}
