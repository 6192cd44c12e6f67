import Foundation
import Testing

/// What `fcm-bridge` prints and exits with on a bad configuration or a bad command line, as the
/// README's exit-status table says: every configuration problem at once with status 2; a usage
/// error with the subcommand's own usage and status 64.
@Suite("The command line's errors", .timeLimit(.minutes(1)))
struct CommandLineTests {
    /// `fcm-bridge arguments` with `environment`; its status and output.
    private func fcmBridge(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32?, output: String
    ) {
        let command = try WorkerProcess(arguments: arguments, environment: environment)
        let status = try await command.exitStatus(within: .seconds(30))
        return (status, command.output)
    }

    @Test("validate-config reports every problem of a file in one run, each naming its field")
    func everyProblem() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).yaml")
        try "kafka: {bootstrap_server: b:1}\nqueue: {max_pending: many}\ndelivery: sometimes\n".write(
            to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await fcmBridge(
            ["validate-config", "--config", file.path], environment: ["FCM_BRIDGE_APNS_PAYLOAD_LIMIT": "huge"])
        #expect(result.status == 2, "\(result.output)")
        for expected in [
            "invalid configuration: 5 problems",
            "configuration field `kafka.bootstrap_servers`: is required",
            "configuration field `kafka.bootstrap_server`: unknown key (did you mean `bootstrap_servers`?)",
            "configuration field `queue.max_pending`: must be a whole number, got \"many\"",
            "configuration field `apns.payload_limit` (set by FCM_BRIDGE_APNS_PAYLOAD_LIMIT): must be a whole number",
            "configuration field `delivery`: must be",
        ] {
            #expect(result.output.contains(expected), "\(expected) in \(result.output)")
        }
    }

    @Test("run logs every configuration problem and exits 2 before it connects")
    func runExits2() async throws {
        let result = try await fcmBridge(
            ["run"], environment: ["FCM_BRIDGE_QUEUE_MAX_PENDING": "abc", "FCM_BRIDGE_KAFKA_PROPERTIES_ACKS": "some"])
        #expect(result.status == 2, "\(result.output)")
        #expect(result.output.contains("kafka.bootstrap_servers`: is required"), "\(result.output)")
        #expect(result.output.contains("(set by FCM_BRIDGE_QUEUE_MAX_PENDING)"), "\(result.output)")
        #expect(
            result.output.contains("`kafka.properties.acks` (set by FCM_BRIDGE_KAFKA_PROPERTIES_ACKS)"),
            "\(result.output)")
    }

    @Test(
        "a usage error prints the subcommand's own usage and exits 64",
        arguments: [
            (["translate", "/nonexistent/request.json"], "Usage: fcm-bridge translate"),
            (["run", "--bogus"], "Usage: fcm-bridge run"),
            (["validate-config", "--config"], "Usage: fcm-bridge validate-config"),
        ])
    func usage(arguments: [String], usage: String) async throws {
        let result = try await fcmBridge(arguments)
        #expect(result.status == 64, "\(result.output)")
        #expect(result.output.contains(usage), "\(result.output)")
    }
}
