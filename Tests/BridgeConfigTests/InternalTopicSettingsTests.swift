import BridgeConfig
import Testing

@Suite("Internal topic settings")
struct InternalTopicSettingsTests {
    @Test("the changelog: compacted, never deleted by retention; what is not reported is not judged", arguments: [
        ([:], []),
        (["cleanup.policy": "compact", "retention.ms": "604800000"], []),
        (["cleanup.policy": "delete", "retention.ms": "-1"], ["cleanup.policy"]),
        (["cleanup.policy": "delete", "retention.ms": "604800000"], ["cleanup.policy", "retention.ms"]),
        (["cleanup.policy": "compact,delete", "retention.ms": "-1", "retention.bytes": "-1"], []),
        (["cleanup.policy": "compact, delete", "retention.bytes": "1073741824"], ["retention.bytes"]),
    ] as [([String: String], [String])])
    func changelog(configs: [String: String], wrongSettings: [String]) {
        let problems = InternalTopicSettings.changelogProblems("g.device-state-changelog", configs: configs)
        #expect(problems.count == wrongSettings.count, "\(problems)")
        for (problem, setting) in zip(problems, wrongSettings) {
            #expect(problem.contains("internal topic g.device-state-changelog has \(setting)="), "\(problem)")
        }
    }

    @Test("the repartition topic: deleted only explicitly, CreateTime, no retention", arguments: [
        ([:], []),
        (InternalTopicSettings.repartition, []),
        (["message.timestamp.type": "LogAppendTime"], ["message.timestamp.type"]),
        (["cleanup.policy": "compact"], ["cleanup.policy"]),
        (["cleanup.policy": "delete", "retention.ms": "604800000", "retention.bytes": "-1"], ["retention.ms"]),
    ] as [([String: String], [String])])
    func repartition(configs: [String: String], wrongSettings: [String]) {
        let problems = InternalTopicSettings.repartitionProblems("g.device-repartition", configs: configs)
        #expect(problems.count == wrongSettings.count, "\(problems)")
        for (problem, setting) in zip(problems, wrongSettings) {
            #expect(problem.contains("internal topic g.device-repartition has \(setting)="), "\(problem)")
        }
    }

    @Test("the settings the bridge creates its topics with pass its own check")
    func creationSettingsPass() {
        #expect(InternalTopicSettings.changelogProblems("c", configs: InternalTopicSettings.changelog).isEmpty)
        #expect(InternalTopicSettings.repartitionProblems("r", configs: InternalTopicSettings.repartition).isEmpty)
    }
}
