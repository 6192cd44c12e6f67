import Foundation

/// The settings the bridge's internal topics need so that nothing is lost, and the check of the
/// settings a cluster reports for topics that exist already.
///
/// Event times can be weeks old, so time-based retention would delete records the moment they are
/// written: the changelog is compacted and never deleted by time or size, and the repartition
/// topic keeps every record until it is consumed (no retention, no compaction, which would drop
/// unread records of the same device) and keeps each record's CreateTime as its event time.
public enum InternalTopicSettings {
    /// The configs the changelog topic is created with. A record stays uncompacted for an hour
    /// at least: a restore drops the records of inputs the group has not committed, and the
    /// record each one replaced must still be there then.
    public static let changelog = ["cleanup.policy": "compact", "min.compaction.lag.ms": "3600000"]
    /// The configs the watchers' parking topic is created with: parked events wait until they
    /// are replayed, however long that takes.
    public static let parking = ["cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1"]
    /// The configs the repartition topic is created with.
    public static let repartition = [
        "cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1",
        "message.timestamp.type": "CreateTime",
    ]

    /// What is wrong with the reported configs of the changelog topic `name`, one line each;
    /// settings the cluster does not report are not judged.
    public static func changelogProblems(_ name: String, configs: [String: String]) -> [String] {
        let policies = cleanupPolicies(configs)
        var problems: [String] = []
        if let policies, !policies.contains("compact") {
            problems.append(
                problem(
                    name, "cleanup.policy", configs, expected: "compact",
                    why: "without compaction, retention deletes device state or restore replays all history"))
        }
        if policies?.contains("delete") ?? false {
            problems += unboundedRetentionProblems(name, configs, why: "device state would be deleted by retention")
        }
        return problems
    }

    /// What is wrong with the reported configs of the repartition topic `name`, one line each;
    /// settings the cluster does not report are not judged.
    public static func repartitionProblems(_ name: String, configs: [String: String]) -> [String] {
        var problems: [String] = []
        if let policies = cleanupPolicies(configs), policies != ["delete"] {
            problems.append(
                problem(
                    name, "cleanup.policy", configs, expected: "delete",
                    why: "compaction would drop unread inputs of a device"))
        }
        if let type = configs["message.timestamp.type"], type != "CreateTime" {
            problems.append(
                problem(
                    name, "message.timestamp.type", configs, expected: "CreateTime",
                    why: "the broker's clock would replace event times"))
        }
        return problems
            + unboundedRetentionProblems(
                name, configs, why: "inputs with old event times would be deleted before they are read")
    }

    private static func cleanupPolicies(_ configs: [String: String]) -> Set<String>? {
        configs["cleanup.policy"].map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
    }

    private static func unboundedRetentionProblems(_ name: String, _ configs: [String: String], why: String) -> [String]
    {
        ["retention.ms", "retention.bytes"].compactMap { setting in
            guard let value = configs[setting], value != "-1" else { return nil }
            return problem(name, setting, configs, expected: "-1", why: why)
        }
    }

    private static func problem(
        _ name: String, _ setting: String, _ configs: [String: String], expected: String, why: String
    ) -> String {
        "internal topic \(name) has \(setting)=\(configs[setting] ?? "") but needs \(expected): \(why); "
            + "change it (kafka-configs.sh --alter --entity-type topics --entity-name \(name) --add-config \(setting)=\(expected))"
    }
}
