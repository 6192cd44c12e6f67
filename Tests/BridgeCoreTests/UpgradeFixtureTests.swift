import Foundation
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore

/// The changelog and repartition records an earlier build wrote restore into this one: each
/// fixture in `Tests/Fixtures/upgrade` is a scenario's records as the build it is named after
/// wrote them (devices with waiting messages, one awaiting an `ack`, memberships, and a fan-out in
/// the middle of its walk, with its repartition records still to read), and replaying it must
/// serve the scenario's devices as that build would have. A fixture is never rewritten: a format
/// change adds one, written by the code before it (`FCM_BRIDGE_WRITE_FIXTURE=<file> swift test
/// --filter UpgradeFixtureTests`).
@Suite("Upgrades restore earlier versions' records")
struct UpgradeFixtureTests {
    typealias Network = FanOutFlowTests.Network

    static let fixtures = FixtureRecord.upgradeFixtures
    static let bigTopic = (0..<1500).map { "m\($0)" }

    /// The scenario, stopped with the fan-out to `big` in the middle of its walk.
    static func scenario() -> Network {
        var network = Network(subscriptions: [("big", bigTopic), ("news", ["a", "b", "c"]), ("sport", ["a"])])
        network.run()
        network.send(#"{"message":{"token":"off-1","notification":{"title":"first-waiting"}}}"#)
        network.send(
            #"{"message":{"token":"off-1","apns":{"headers":{"apns-collapse-id":"score"}},"notification":{"title":"second-waiting"}}}"#
        )
        network.send(#"{"message":{"token":"off-2","notification":{"title":"third-waiting"}}}"#)
        network.presence("on-1", "connect", at: FanOutFlowTests.time)
        network.run()
        network.send(#"{"message":{"token":"on-1","notification":{"title":"dispatched"}}}"#)
        network.run()
        network.send(FanOutFlowTests.topicSend("big"))
        // The send, then its walk's first chunk: the walk's other segments are still to go.
        for _ in 0..<2 { _ = network.step() }
        return network
    }

    @Test("writes the fixture of this build when asked", .enabled(if: Self.fixtureToWrite != nil))
    func writeFixture() throws {
        let network = Self.scenario()
        #expect(network.worker.states.topics.fanOutsInProgress == (1, 1))
        let records =
            network.worker.written.filter { $0.topic == .changelog }.map {
                FixtureRecord(consumed($0, topic: "changelog"), topic: "changelog")
            } + network.pending.map { FixtureRecord($0, topic: "repartition") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let lines = try records.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try (lines.joined(separator: "\n") + "\n").write(
            to: URL(fileURLWithPath: try #require(Self.fixtureToWrite)), atomically: true, encoding: .utf8)
    }

    static var fixtureToWrite: String? { ProcessInfo.processInfo.environment["FCM_BRIDGE_WRITE_FIXTURE"] }

    static var fixtureNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasSuffix(".jsonl") }
            .sorted()
    }

    @Test("there is a fixture to restore")
    func fixturesExist() {
        #expect(!Self.fixtureNames.isEmpty, "no fixture in \(Self.fixtures.path)")
    }

    @Test(
        "a fixture restores: waiting messages, the ack awaited, memberships, and the walk finishes",
        arguments: fixtureNames)
    func restoresFixture(name: String) throws {
        let records = try FixtureRecord.read(Self.fixtures.appendingPathComponent(name))
        var network = Network(subscriptions: [])
        let codec = network.worker.processor.changelog
        var restored = DeviceStates()
        for partition in 0..<SubscriptionFlowTests.partitions { restored.adopt(partition) }
        for record in records where record.topic == "changelog" {
            let change = try codec.decode(record.record(topic: codec.topic))
            restored.restore(change, in: record.partition)
        }
        network.worker.states = restored
        network.pending = records.filter { $0.topic == "repartition" }.map {
            $0.record(topic: network.worker.processor.repartition.topic)
        }
        #expect(restored.topics.fanOutsInProgress == (1, 1), "the walk of big and its tally")

        network.run()
        #expect(network.fannedOut.map { $0.json["count"] } == [.number("1500")])
        #expect(Set(network.copyStatuses.keys) == Set(Self.bigTopic))
        for token in ["off-1", "off-2", "on-1"] { network.presence(token, "connect", at: FanOutFlowTests.time + 1) }
        network.send(FanOutFlowTests.topicSend("news"))
        network.send(FanOutFlowTests.topicSend("sport"))
        network.run()
        let inbox = network.written.filter { $0.topic == .inbox }.map {
            (String(decoding: $0.key ?? [], as: UTF8.self), String(decoding: $0.value ?? [], as: UTF8.self))
        }
        #expect(inbox.filter { $0.0 == "off-1" }.map { $0.1.contains("first-waiting") } == [true, false])
        #expect(inbox.filter { $0.0 == "off-1" }.map { $0.1.contains("second-waiting") } == [false, true])
        #expect(inbox.filter { $0.0 == "off-2" }.count { $0.1.contains("third-waiting") } == 1)
        #expect(!inbox.contains { $0.0 == "on-1" && $0.1.contains("dispatched") }, "dispatched before the upgrade")
        let copies = network.copyStatuses.filter { !$0.key.hasPrefix("m") }
        #expect(copies.mapValues(\.count) == ["a": 2, "b": 1, "c": 1], "news to a, b and c, sport to a, each queued")

        // The message dispatched to on-1 before the upgrade still awaits its ack.
        let awaited = try #require(
            records.first { $0.topic == "changelog" && $0.key.map { Self.isAwaitedKey($0, of: "on-1") } == true })
        let id = String(
            decoding: (awaited.key ?? Data()).dropFirst(2).prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
        network.acknowledge(id, by: "on-1", at: FanOutFlowTests.time + 2)
        network.run()
        #expect(
            network.statuses.contains {
                $0.json["type"] == .string("delivered") && $0.json["message_id"] == .string(id)
            })
    }

    /// Whether `key` is that of a message awaiting `token`'s ack: `a <id> <token>`.
    static func isAwaitedKey(_ key: Data, of token: String) -> Bool {
        key.starts(with: Array("a ".utf8)) && key.reversed().starts(with: Array((" " + token).utf8).reversed())
    }
}
