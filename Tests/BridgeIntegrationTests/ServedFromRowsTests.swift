import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

/// A worker that holds few devices in memory and serves the rest from its device rows
/// (`state.devices_held`): every device it lets go is read back, as it was, when a record names
/// it, after a restart too, and the idle sweep finds those in the rows.
@Suite("State served from the device rows", .needsBroker, .timeLimit(.minutes(4)))
struct ServedFromRowsTests {
    static let devices = 20
    static let rounds = 3

    @Test(
        "holding 2 of 20 devices, a worker lets the others go and reads them back: each gets every message in order, after a restart too, and idle ones are forgotten a month later"
    )
    func fewHeld() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let directory = TemporaryDirectory()
        // Batches of four records: most records are read and taken while the batch before commits.
        let environment = [
            "FCM_BRIDGE_STATE_DIRECTORY": directory.path, "FCM_BRIDGE_STATE_DEVICE_ROWS": "true",
            "FCM_BRIDGE_STATE_DEVICES_HELD": "2", "FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "100",
            "FCM_BRIDGE_MAX_BATCH_RECORDS": "4",
        ]
        let tokens = (0..<Self.devices).map { uniqueToken("served\($0)") }
        let faults = FaultTests()
        var worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        let address = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        var expected: [String: [String]] = [:]
        for round in 0..<Self.rounds {
            for (token, id) in zip(tokens, try await faults.sendRound(round, tokens: tokens, fixture: fixture)) {
                expected[token, default: []].append(id)
            }
            // The rows are written every 100 ms, and the devices they hold let go.
            try await Task.sleep(for: .seconds(1))
        }
        // Every round but the first read back all the devices but the two held.
        let least = Double((Self.rounds - 1) * (Self.devices - 2))
        try await Self.expectFewHeld(at: address, reads: least)
        try await Self.subscribe(tokens, fixture: fixture)

        // The rows are at their stores' checkpoints after a graceful stop, holding the devices and
        // the topics' members: the restart serves from them, reading no device until a record
        // names it, and counts every device.
        worker.terminate()
        let compared = try await fixture.expectRowsHoldTheStores(in: directory.path)
        #expect(compared.partitions == 2 && compared.devices == Self.devices, "\(compared)")
        // Flushed at the stop: the restart has no log of theirs to replay.
        #expect(try Self.logBytes(in: directory.path) < 1_024)
        worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        defer { worker.kill() }
        let restarted = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        let restored = worker.output.split(separator: "\n").filter { $0.contains("restored device state") }
        #expect(
            restored.count == 1 && restored.allSatisfy { $0.contains("from_device_rows=[0, 1]") },
            "\(restored)")
        try await Self.expectFewHeld(at: restarted, reads: 0, atMost: 0)
        try await faults.expectEverythingDelivered(expected, fixture: fixture, exactlyOnce: true)
        try await Self.expectTopicSendFromRows(
            to: Array(tokens.prefix(Self.devices - 5)), of: "served-news", besides: 5, at: restarted, fixture: fixture)

        for token in tokens { try await fixture.presence(token, "disconnect", at: testEpoch + day) }
        try await Task.sleep(for: .seconds(1))
        // A month later, inputs to both partitions: the first asks the rows for idle devices, the
        // next forget them.
        for wave in 0..<2 {
            for later in 0..<Self.devices {
                try await fixture.presence(uniqueToken("later\(wave)-\(later)"), "connect", at: testEpoch + 40 * day)
            }
            try await Task.sleep(for: .seconds(1))
        }
        var tombstoned: Set<String> = []
        _ = await eventually(timeout: .seconds(60), every: .milliseconds(500)) {
            let records = (try? await Self.changelog(fixture)) ?? []
            tombstoned = Set(records.filter { $0.value == nil }.compactMap { $0.key.map { String(buffer: $0) } })
            return tokens.allSatisfy { tombstoned.contains("d \($0)") }
        }
        let kept = tokens.filter { !tombstoned.contains("d \($0)") }
        #expect(kept.isEmpty, "not forgotten: \(kept)")
    }

    @Test("a worker given device rows it lacks holds every device until the rows it writes at its restore hold them")
    func rowsWrittenFirst() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let directory = TemporaryDirectory()
        // Nothing is written to the stores on a timer: a restore's rows wait for the stop.
        let environment = [
            "FCM_BRIDGE_STATE_DIRECTORY": directory.path, "FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "3600000",
        ]
        let tokens = (0..<8).map { uniqueToken("served-late\($0)") }
        let faults = FaultTests()
        let worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        var expected: [String: [String]] = [:]
        for round in 0..<3 {
            for (token, id) in zip(tokens, try await faults.sendRound(round, tokens: tokens, fixture: fixture)) {
                expected[token, default: []].append(id)
            }
        }
        let reader = try await fixture.outputs()
        for token in tokens { _ = try await reader.statuses(of: token, count: 3) }
        worker.terminate()

        let successor = try WorkerProcess(
            fixture.configuration,
            extraEnvironment: environment.merging([
                "FCM_BRIDGE_STATE_DEVICE_ROWS": "true", "FCM_BRIDGE_STATE_DEVICES_HELD": "1",
            ]) { $1 })
        defer { successor.kill() }
        #expect(try await successor.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        try await faults.expectEverythingDelivered(expected, fixture: fixture, exactlyOnce: true)
    }

    /// The bytes of RocksDB's logs in the rows of the state directory `path`.
    static func logBytes(in path: String) throws -> Int {
        let files = FileManager.default
        var bytes = 0
        for rows in try files.contentsOfDirectory(atPath: path) where rows.hasSuffix(".rows") {
            for log in try files.contentsOfDirectory(atPath: "\(path)/\(rows)") where log.hasSuffix(".log") {
                bytes += try files.attributesOfItem(atPath: "\(path)/\(rows)/\(log)")[.size] as? Int ?? 0
            }
        }
        return bytes
    }

    /// Subscribes `tokens` to two topics, takes the last five out of the first, and waits for
    /// their statuses.
    static func subscribe(_ tokens: [String], fixture: BridgeFixture) async throws {
        try await fixture.subscription("subscribe", topic: "served-news", tokens: tokens, at: testEpoch)
        try await fixture.subscription(
            "subscribe", topic: "served-sport", tokens: Array(tokens.prefix(5)), at: testEpoch)
        try await fixture.subscription(
            "unsubscribe", topic: "served-news", tokens: Array(tokens.suffix(5)), at: testEpoch)
        let reader = try await fixture.outputs()
        for (index, token) in tokens.enumerated() {
            let expected = 1 + (index < 5 ? 1 : 0) + (index >= tokens.count - 5 ? 1 : 0)
            try await reader.waitUntil("\(token)'s subscriptions") { outputs in
                outputs.statuses(of: token).count {
                    $0["type"] == .string("subscribed") || $0["type"] == .string("unsubscribed")
                }
                    == expected
            }
        }
    }

    /// Subscribes one more device to `topic`, whose members are `members` (beside `others`
    /// memberships of other topics), and expects the worker at `address` to hold no member in
    /// memory once its rows hold them (a restore that rebuilt them holds them until the batch
    /// after their write), and a send to the topic to reach each member once, counted.
    static func expectTopicSendFromRows(
        to members: [String], of topic: String, besides others: Int, at address: String, fixture: BridgeFixture
    ) async throws {
        let reader = try await fixture.outputs()
        let late = uniqueToken("served-late")
        var metrics = ""
        let notHeld = await eventually(timeout: .seconds(30), every: .seconds(1)) {
            // Each subscription makes batches: the first after the rows' write lets the members go.
            try? await fixture.subscription("subscribe", topic: topic, tokens: [late], at: testEpoch)
            metrics = (try? await httpGet(address, "/metrics").body) ?? ""
            return sample("fcm_bridge_topic_memberships_in_memory", in: metrics) == 0
                && sample("fcm_bridge_topic_memberships", in: metrics) == Double(members.count + 1 + others)
        }
        #expect(notHeld, "\(metrics.split(separator: "\n").filter { $0.contains("fcm_bridge_topic") })")
        let send = #"{"message":{"topic":"\#(topic)","notification":{"title":"From the rows"}}}"#
        try await fixture.send([send], key: nil, at: testEpoch + 2 * day)
        try await reader.waitUntil("fanned_out") { reader in
            reader.statuses.contains { $0.json["type"] == .string("fanned_out") }
        }
        let fannedOut = reader.statuses.filter { $0.json["type"] == .string("fanned_out") }
        #expect(fannedOut.count == 1 && fannedOut.first?.json["count"] == .number("\(members.count + 1)"))
        try await reader.waitUntil("a copy's status per member") { reader in
            (members + [late]).allSatisfy { token in
                reader.statuses(of: token).contains { $0["message_id"]?.stringValue?.contains("/") == true }
            }
        }
        for token in members + [late] {
            let copies = reader.statuses(of: token).filter { $0["message_id"]?.stringValue?.contains("/") == true }
            #expect(copies.count == 1, "\(token): \(copies)")
        }
    }

    /// Expects the worker at `address` to count every device, hold no more than `atMost` in
    /// memory, and have read at least `reads` from its rows, within 30 s (its gauges are set every
    /// 10 s).
    static func expectFewHeld(at address: String, reads: Double, atMost: Double = 2) async throws {
        var metrics = ""
        let fewHeld = await eventually(timeout: .seconds(30), every: .milliseconds(500)) {
            metrics = (try? await httpGet(address, "/metrics").body) ?? ""
            return sample("fcm_bridge_devices", in: metrics) == Double(devices)
                && sample("fcm_bridge_devices_in_memory", in: metrics).map { $0 <= atMost } == true
                && sample("fcm_bridge_device_reads_total", in: metrics).map { $0 >= reads } == true
        }
        #expect(fewHeld, "\(metrics.split(separator: "\n").filter { $0.contains("fcm_bridge_device") })")
    }

    /// Every record of both partitions of the changelog, read committed, to its end.
    static func changelog(_ fixture: BridgeFixture) async throws -> [ConsumerRecord] {
        var records: [ConsumerRecord] = []
        for partition: Int32 in [0, 1] {
            var configuration = KafkaConsumerConfiguration(kafka: fixture.kafka, groupID: nil)
            configuration.isolationLevel = .readCommitted
            configuration.fetchWaitMax = .milliseconds(10)
            records += try await KafkaConsumer.readToEnd(
                [TopicPartition(fixture.configuration.changelogTopic, partition)], configuration: configuration,
                logger: BridgeFixture.logger)
        }
        return records
    }
}
