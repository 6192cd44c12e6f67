import BridgeConfig
import Testing

@testable import BridgeWorker

/// `fcm-bridge topics`' report, from what a cluster says, with no broker.
@Suite("The topic report")
struct TopicReportTests {
    static let configuration: BridgeConfiguration = {
        var configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        configuration.kafka.groupID = "g"
        return configuration
    }()
    static let inputsAndOutputs = [
        "fcm.send", "fcm.presence", "fcm.subscriptions", "fcm.inbox", "fcm.status", "fcm.dlq",
    ]
    static let internalTopics = ["g.device-state-changelog", "g.device-repartition"]
    static let goodConfigs = [
        "g.device-state-changelog": InternalTopicSettings.changelog,
        "g.device-repartition": InternalTopicSettings.repartition,
    ]

    /// Every topic with `count` partitions, except those in `except`.
    static func partitions(_ count: Int32, except: [String: Int32?] = [:]) -> [String: Int32] {
        var partitions: [String: Int32] = [:]
        for name in inputsAndOutputs + internalTopics {
            if let override = except[name] { partitions[name] = override } else { partitions[name] = count }
        }
        return partitions
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var partitions: [String: Int32]
        var configs: [String: [String: String]]? = TopicReportTests.goodConfigs
        var statePartitions: Int32
        /// Each problem as `topic: start of the text`.
        var problems: [String]
        /// Each note as `topic: start of the text`.
        var notes: [String]
        var testDescription: String { name }
    }

    @Test(
        "what breaks and what costs",
        arguments: [
            Case(name: "all in place", partitions: partitions(4), statePartitions: 4, problems: [], notes: []),
            Case(
                name: "nothing exists", partitions: [:], statePartitions: 4,
                problems: (inputsAndOutputs + internalTopics).map {
                    "\($0): missing (`fcm-bridge topics --create` creates it, with 4 partitions)"
                },
                notes: []),
            Case(
                name: "presence split 2 ways: an extra hop, not a problem",
                partitions: partitions(4, except: ["fcm.presence": 2]), statePartitions: 4,
                problems: [], notes: ["fcm.presence: split 2 ways, the state 4: not co-partitioned"]),
            Case(
                name: "the send topic decides the state's split: internal topics made for 4 no longer fit",
                partitions: partitions(4, except: ["fcm.send": 8]), statePartitions: 8,
                problems: [
                    "g.device-state-changelog: has 4 partitions but device state is split 8 ways",
                    "g.device-repartition: has 4 partitions but device state is split 8 ways",
                ],
                notes: ["fcm.presence: split 4 ways, the state 8"]),
            Case(
                name: "a changelog with time retention", partitions: partitions(4),
                configs: goodConfigs.merging([
                    "g.device-state-changelog": ["cleanup.policy": "delete", "retention.ms": "604800000"]
                ]) { $1 },
                statePartitions: 4,
                problems: [
                    "g.device-state-changelog: internal topic g.device-state-changelog has cleanup.policy=delete but needs compact",
                    "g.device-state-changelog: internal topic g.device-state-changelog has retention.ms=604800000 but needs -1",
                ],
                notes: []),
            Case(
                name: "a repartition topic stamped by the broker", partitions: partitions(4),
                configs: goodConfigs.merging(["g.device-repartition": ["message.timestamp.type": "LogAppendTime"]]) {
                    $1
                },
                statePartitions: 4,
                problems: [
                    "g.device-repartition: internal topic g.device-repartition has message.timestamp.type=LogAppendTime but needs CreateTime"
                ],
                notes: []),
            Case(
                name: "a cluster that does not describe configs", partitions: partitions(4), configs: nil,
                statePartitions: 4,
                problems: [], notes: ["g.device-state-changelog: the cluster did not describe topic configs"]),
        ])
    func report(_ expected: Case) {
        let report = TopicReport(
            configuration: Self.configuration, partitions: expected.partitions, configs: expected.configs)
        #expect(report.statePartitions == expected.statePartitions)
        #expect(report.problems.count == expected.problems.count, "\(report.problems)")
        for (problem, start) in zip(report.problems, expected.problems) {
            #expect(problem.hasPrefix(start), "\(problem)")
        }
        let notes = report.entries.flatMap { entry in entry.notes.map { "\(entry.name): \($0)" } }
        #expect(notes.count == expected.notes.count, "\(notes)")
        for (note, start) in zip(notes, expected.notes) { #expect(note.hasPrefix(start), "\(note)") }
    }

    @Test("the printed report names each topic with its role and partitions, then its problems")
    func description() {
        let report = TopicReport(
            configuration: Self.configuration, partitions: Self.partitions(4, except: ["fcm.dlq": nil]),
            configs: Self.goodConfigs)
        let lines = report.description.split(separator: "\n").map(String.init)
        #expect(lines.first == "device state is split 4 ways")
        #expect(lines.contains("fcm.send (input: send requests): 4 partitions"))
        #expect(lines.contains("fcm.dlq (output: dead letters): missing"))
        #expect(lines.contains { $0.hasPrefix("  problem: missing (") })
    }
}
