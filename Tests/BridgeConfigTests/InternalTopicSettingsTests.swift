import BridgeConfig
import Testing

@Suite("Internal topic settings")
struct InternalTopicSettingsTests {
    @Test(
        "the changelog: compacted, never deleted by retention; what is not reported is not judged",
        arguments: [
            ([:], []),
            (["cleanup.policy": "compact", "retention.ms": "604800000"], []),
            (["cleanup.policy": "delete", "retention.ms": "-1"], ["cleanup.policy"]),
            (["cleanup.policy": "delete", "retention.ms": "604800000"], ["cleanup.policy", "retention.ms"]),
            (["cleanup.policy": "compact,delete", "retention.ms": "-1", "retention.bytes": "-1"], []),
            (["cleanup.policy": "compact, delete", "retention.bytes": "1073741824"], ["retention.bytes"]),
        ] as [([String: String], [String])])
    func changelog(configs: [String: String], wrongSettings: [String]) {
        expect(
            InternalTopicSettings.changelogProblems("g.device-state-changelog", configs: configs), name: wrongSettings,
            of: "g.device-state-changelog")
    }

    @Test(
        "the repartition topic: deleted only explicitly, CreateTime, no retention",
        arguments: [
            ([:], []),
            (InternalTopicSettings.repartition, []),
            (["message.timestamp.type": "LogAppendTime"], ["message.timestamp.type"]),
            (["cleanup.policy": "compact"], ["cleanup.policy"]),
            (["cleanup.policy": "delete", "retention.ms": "604800000", "retention.bytes": "-1"], ["retention.ms"]),
        ] as [([String: String], [String])])
    func repartition(configs: [String: String], wrongSettings: [String]) {
        expect(
            InternalTopicSettings.repartitionProblems("g.device-repartition", configs: configs), name: wrongSettings,
            of: "g.device-repartition")
    }

    @Test("the settings the bridge creates its topics with pass its own check")
    func creationSettingsPass() {
        #expect(InternalTopicSettings.changelogProblems("c", configs: InternalTopicSettings.changelog).isEmpty)
        #expect(InternalTopicSettings.repartitionProblems("r", configs: InternalTopicSettings.repartition).isEmpty)
    }

    /// Expects one problem per setting in `settings`, in order, each naming the topic and the setting.
    private func expect(_ problems: [String], name settings: [String], of topic: String) {
        #expect(problems.count == settings.count, "\(problems)")
        for (problem, setting) in zip(problems, settings) {
            #expect(problem.contains("internal topic \(topic) has \(setting)="), "\(problem)")
        }
    }
}
