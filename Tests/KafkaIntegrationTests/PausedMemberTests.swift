import Kafka
import NIOCore
import TestSupport
import Testing

/// A member that pauses its partitions and polls without waiting keeps its place in the group
/// however long it is busy elsewhere (as the worker is while it restores): what
/// `max.poll.interval.ms` counts is polls, not records.
@Suite("A paused member", .needsBroker, .timeLimit(.minutes(3)))
struct PausedMemberTests {
    @Test(
        "polled every second with its partitions paused, a member outlives max.poll.interval.ms; unpolled, it does not")
    func pausedPollsKeepTheMember() async throws {
        let topic = try await TestBroker.createTopic("paused", partitions: 2)
        var configuration = TestBroker.consumerConfiguration(group: TestBroker.uniqueName("paused"))
        // A session as long as the poll interval (librdkafka allows no longer): a broker slowed
        // by a loaded machine must not end the session before the poll interval is what counts.
        configuration.sessionTimeout = .seconds(15)
        configuration.maxPollInterval = .seconds(15)
        configuration.reportsEndOfPartition = false
        let consumer = try KafkaConsumer(configuration: configuration, logger: TestBroker.logger)
        try consumer.subscribe([topic])
        let assignment = try await consumer.pollUntil { if case .partitionsAssigned = $0 { true } else { false } }
        guard case .partitionsAssigned(let assigned)? = assignment else {
            Issue.record("no assignment within 30 s")
            return
        }
        #expect(assigned.count == 2)
        try consumer.pause(assigned)
        let producer = try TestBroker.producer()
        try await producer.send(
            ProducerRecord(topic: topic, partition: .explicit(0), value: ByteBuffer(string: "held")))
        try await producer.close()

        var whilePaused: [ConsumerEvent] = []
        for _ in 0..<20 {
            whilePaused += try await consumer.poll(timeout: .zero)
            try await Task.sleep(for: .seconds(1))
        }
        #expect(whilePaused.isEmpty, "\(whilePaused)")

        try await consumer.resume(assigned)
        var values: [String] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while values.isEmpty, ContinuousClock.now < deadline {
            for case .record(let record) in try await consumer.poll(timeout: .milliseconds(100)) {
                values.append(String(buffer: record.value ?? ByteBuffer()))
            }
        }
        #expect(values == ["held"])

        // The control: the same member, not polled for longer than the interval, is put out.
        try await Task.sleep(for: .seconds(20))
        var afterSilence: [ConsumerEvent] = []
        for _ in 0..<20 { afterSilence += try await consumer.poll(timeout: .milliseconds(100)) }
        #expect(
            afterSilence.contains { if case .partitionsRevoked = $0 { true } else { false } }, "\(afterSilence)")
        try await consumer.close()
    }
}
