import Foundation
import TestSupport
import Testing

/// `fcm-bridge topics [--create]` against the broker: it reports what is missing, creates it,
/// then finds it in place, and names a state split the internal topics no longer fit.
@Suite("fcm-bridge topics", .needsBroker, .timeLimit(.minutes(2)))
struct TopicsCommandTests {
    /// `fcm-bridge topics arguments` on topics and a group of `id`'s own; its status and output.
    private func topics(_ arguments: [String], id: String, extra: [String: String] = [:]) async throws -> (
        status: Int32?, output: String
    ) {
        var environment = WorkerProcess.ownGroupAndTopics(id)
        environment["FCM_BRIDGE_KAFKA_BOOTSTRAP_SERVERS"] = TestBroker.bootstrapServers ?? ""
        let command = try WorkerProcess(
            arguments: ["topics", "--log-level", "warning"] + arguments, environment: environment.merging(extra) { $1 })
        let status = try await command.exitStatus(within: .seconds(60))
        return (status, command.output)
    }

    @Test("missing topics are a problem until --create makes them, split like the state")
    func createAndVerify() async throws {
        let id = "topics-\(UUID().uuidString.prefix(8))"
        let before = try await topics([], id: id)
        #expect(before.status == 1, "\(before.output)")
        #expect(before.output.components(separatedBy: "problem: missing").count - 1 == 8, "\(before.output)")

        let created = try await topics(["--create"], id: id)
        #expect(created.status == 0, "\(created.output)")
        let lines = created.output.split(separator: "\n")
        for name in [
            "\(id).send", "\(id).presence", "\(id).inbox", "\(id).status", "\(id).dead_letters", "\(id).subscriptions",
            "\(id).device-state-changelog", "\(id).device-repartition",
        ] {
            let line = lines.first { $0.hasPrefix("\(name) (") }
            #expect(line?.hasSuffix("): 4 partitions") == true, "\(name): \(created.output)")
        }
        #expect(!created.output.contains("problem:"), "\(created.output)")

        let after = try await topics([], id: id)
        #expect(after.status == 0, "\(after.output)")

        // The state asked to split 8 ways: the internal topics made for 4 cannot follow.
        let resplit = try await topics([], id: id, extra: ["FCM_BRIDGE_TOPICS_STATE_PARTITIONS": "8"])
        #expect(resplit.status == 1, "\(resplit.output)")
        #expect(
            resplit.output.contains("problem: has 4 partitions but device state is split 8 ways"), "\(resplit.output)")
    }

    @Test("a bad configuration exits 2 naming the field")
    func badConfiguration() async throws {
        let result = try await topics([], id: "topics-bad", extra: ["FCM_BRIDGE_TOPICS_PARTITIONS": "many"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("topics.partitions"), "\(result.output)")
    }
}
