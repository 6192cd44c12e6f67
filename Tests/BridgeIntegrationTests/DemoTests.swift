import Foundation
import KafkaTestSupport
import Testing

/// `scripts/demo.sh`, the README's run command, against the test broker: a bounded run accounts
/// for every request, and Ctrl-C stops the demo, the worker and the script.
@Suite("The live demo", .needsBroker, .timeLimit(.minutes(4)))
struct DemoTests {
    /// `bash scripts/demo.sh arguments` in a session of its own (so that a signal can go to its
    /// whole process group, as Ctrl-C does), with topics and a group of its own.
    private func demo(_ arguments: [String]) throws -> WorkerProcess {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let id = "demo-\(UUID().uuidString.prefix(8))"
        var environment = [
            "KAFKA_BOOTSTRAP_SERVERS": ProcessInfo.processInfo.environment["KAFKA_BOOTSTRAP_SERVERS"] ?? "",
            "FCM_BRIDGE_BINARY": WorkerProcess.binary.path,
            "FCM_BRIDGE_KAFKA_GROUP_ID": id,
        ]
        for topic in ["send", "presence", "inbox", "status", "dead_letters"] {
            environment["FCM_BRIDGE_TOPICS_\(topic.uppercased())"] = "\(id).\(topic)"
        }
        // setsid forks (-f) the script into a new session and waits for it (-w), with its status.
        return try WorkerProcess(executable: URL(fileURLWithPath: "/usr/bin/setsid"),
                                 arguments: ["-f", "-w", "bash", root.appendingPathComponent("scripts/demo.sh").path] + arguments,
                                 environment: environment)
    }

    /// The figures of the last summary: `name number` pairs of its `statuses` and `devices` lines.
    private func figures(_ output: String) -> [String: Int] {
        let lines = output.split(separator: "\n").filter { $0.hasPrefix("statuses") || $0.hasPrefix("devices") }.suffix(2)
        var figures: [String: Int] = [:]
        for line in lines {
            for match in line.matches(of: /([a-z_]+(?: syncs)?) (\d+)/) { figures[String(match.1)] = Int(match.2) }
        }
        return figures
    }

    @Test("a bounded run ends with every request accounted for, through every kind of outcome")
    func boundedRun() async throws {
        let run = try demo(["--duration", "20", "--devices", "40", "--rate", "100"])
        let status = try await run.exitStatus(within: .seconds(180))
        let output = run.output
        #expect(status == 0, "\(output.suffix(3000))")
        #expect(output.contains("every outcome accounted for"), "\(output.suffix(3000))")
        let seen = figures(output)
        // The mix and the plan make every kind of outcome; the overflow bursts make full syncs.
        for name in ["queued", "dispatched", "delivered", "collapsed", "expired", "deleted_messages", "rejected", "validated", "full syncs"] {
            #expect(seen[name, default: 0] > 0, "\(name): \(seen)")
        }
        #expect(seen["waiting"] == 0)
    }

    @Test("Ctrl-C stops the demo with a final summary, and the worker and the script with it")
    func interrupted() async throws {
        let run = try demo(["--devices", "20", "--rate", "50"])
        #expect(try await run.waitForOutput(containing: "fcm-bridge demo  00:05", timeout: .seconds(120)), "\(run.output.suffix(3000))")
        // The script, setsid's child, leads the process group of the demo and the worker.
        let children = try String(contentsOfFile: "/proc/\(run.processIdentifier)/task/\(run.processIdentifier)/children", encoding: .utf8)
        let script = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
        // Ctrl-C: SIGINT to the whole foreground process group.
        kill(-script, SIGINT)
        let status = try await run.exitStatus(within: .seconds(60))
        #expect(status == 0, "\(run.output.suffix(3000))")
        #expect(run.output.contains("demo finished after"))
        // Nothing of it is left: not the demo, not the worker.
        #expect(kill(-script, 0) == -1 && errno == ESRCH)
    }
}
