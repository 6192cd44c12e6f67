import BridgeConfig
import Foundation
import Testing

/// An `fcm-bridge run` process, configured through environment variables only.
final class WorkerProcess {
    private let process = Process()
    let log: URL

    /// The repository's root directory.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `fcm-bridge`: `FCM_BRIDGE_BINARY` (set by scripts/test.sh), else the debug build.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["FCM_BRIDGE_BINARY"] { return URL(fileURLWithPath: path) }
        return repositoryRoot.appendingPathComponent(".build/debug/fcm-bridge")
    }

    /// Starts `executable` (`fcm-bridge` unless named) with `arguments`, with this process's
    /// environment less its `FCM_BRIDGE_` variables, plus `environment`.
    init(executable: URL = binary, arguments: [String], environment: [String: String]) throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fcm-bridge-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FCM_BRIDGE_") }.merging(
            environment
        ) { $1 }
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// The variables that give a worker (or any `fcm-bridge` command) the consumer group `id` and
    /// topics of its own, named `id.send`, `id.presence`, `id.inbox`, `id.status`, `id.dead_letters`.
    static func ownGroupAndTopics(_ id: String) -> [String: String] {
        var environment = ["FCM_BRIDGE_KAFKA_GROUP_ID": id]
        for topic in ["send", "presence", "inbox", "status", "dead_letters", "subscriptions"] {
            environment["FCM_BRIDGE_TOPICS_\(topic.uppercased())"] = "\(id).\(topic)"
        }
        return environment
    }

    /// Starts a worker with `configuration`, logging at `logLevel`, with `extraEnvironment` added.
    convenience init(
        _ configuration: BridgeConfiguration, logLevel: String = "info", extraEnvironment: [String: String] = [:]
    ) throws {
        var environment: [String: String] = [:]
        let topics = configuration.topics
        let fields: [String: String] = [
            "kafka.bootstrap_servers": configuration.kafka.bootstrapServers,
            "kafka.group_id": configuration.kafka.groupID,
            "topics.send": topics.send, "topics.presence": topics.presence, "topics.inbox": topics.inbox,
            "topics.status": topics.status, "topics.dead_letters": topics.deadLetters,
            "topics.subscriptions": topics.subscriptions,
            "delivery": configuration.delivery.rawValue,
            "apns.bundle_id": configuration.bundleID ?? "",
            "shutdown_timeout_ms": "\(configuration.shutdownTimeoutMilliseconds)",
            // Many workers on one machine: each its own free port (``httpAddress`` finds it).
            "http.listen": "127.0.0.1:0",
        ]
        var configured = fields
        configured["kafka.transactional_id"] = configuration.kafka.transactionalID
        configured["kafka.group_instance_id"] = configuration.kafka.groupInstanceID
        for (field, value) in configured {
            environment["FCM_BRIDGE_" + field.uppercased().replacing(".", with: "_")] = value
        }
        for (section, properties) in [
            ("CONSUMER_PROPERTIES", configuration.kafka.consumerProperties),
            ("PRODUCER_PROPERTIES", configuration.kafka.producerProperties),
        ] {
            for (name, value) in properties {
                environment["FCM_BRIDGE_KAFKA_\(section)_" + name.uppercased().replacing(".", with: "_")] = value
            }
        }
        try self.init(
            arguments: ["run", "--log-level", logLevel], environment: environment.merging(extraEnvironment) { $1 })
    }

    /// Kills it at once, as `kill -9` does: no shutdown, no commit.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops it as SIGTERM does.
    func terminate() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Sends it `signal`.
    func send(_ signal: Int32) {
        Foundation.kill(process.processIdentifier, signal)
    }

    /// Its process id.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Waits until its output contains `text`; false if it does not within `timeout` or exits first.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(30)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            guard ContinuousClock.now < deadline, process.isRunning else { return output.contains(text) }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Waits for it to exit and returns its exit status; nil if it still runs after `timeout`.
    func exitStatus(within timeout: Duration) async throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }

    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Where its HTTP endpoints listen, from its log; nil if they do not within `timeout`.
    func httpAddress(timeout: Duration = .seconds(30)) async throws -> String? {
        guard try await waitForOutput(containing: "http endpoints listening", timeout: timeout) else { return nil }
        let line = output.split(separator: "\n").first { $0.contains("http endpoints listening") } ?? ""
        return line.firstMatch(of: /address=(\S+)/).map { String($0.1) }
    }

    deinit { if process.isRunning { kill() } }
}
