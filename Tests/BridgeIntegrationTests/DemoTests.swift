import Foundation
import Kafka
import TestSupport
import Testing

/// `scripts/demo.sh`, the README's run command: a bounded run accounts for every request, as the
/// status topic read from outside confirms, and Ctrl-C stops the demo, the worker and the broker
/// the script started.
@Suite("The live demo", .needsBroker, .timeLimit(.minutes(4)))
struct DemoTests {
    /// `bash scripts/demo.sh arguments` in a session of its own (so that a signal can go to its
    /// whole process group, as Ctrl-C does), with `environment`; and the script's process id,
    /// which is its process group's.
    private func demo(_ arguments: [String], environment: [String: String]) async throws -> (
        run: WorkerProcess, script: Int32
    ) {
        var environment = environment
        environment["FCM_BRIDGE_BINARY"] = WorkerProcess.binary.path
        // setsid forks (-f) the script into a new session and waits for it (-w), with its status.
        let run = try WorkerProcess(
            executable: URL(fileURLWithPath: "/usr/bin/setsid"),
            arguments: [
                "-f", "-w", "bash", WorkerProcess.repositoryRoot.appendingPathComponent("scripts/demo.sh").path,
            ] + arguments,
            environment: environment)
        var script: Int32?
        for _ in 0..<100 where script == nil {
            let children =
                (try? String(
                    contentsOfFile: "/proc/\(run.processIdentifier)/task/\(run.processIdentifier)/children",
                    encoding: .utf8)) ?? ""
            script = children.split(separator: " ").first.flatMap { Int32($0) }
            if script == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        return (run, try #require(script))
    }

    /// An unbounded demo of 20 devices at 50 requests a second, in `group` with `environment`
    /// added, whose script starts a broker of its own (no cluster named), once its summary shows:
    /// the run, the script's process id (its group's), and the broker's.
    private func runningDemoWithOwnBroker(group: String, environment extra: [String: String] = [:]) async throws
        -> (run: WorkerProcess, script: Int32, broker: Int32)
    {
        let brokerName = "demo-test-\(UUID().uuidString.prefix(8))"
        var environment = WorkerProcess.ownGroupAndTopics(group).merging(extra) { $1 }
        environment["KAFKA_BOOTSTRAP_SERVERS"] = ""
        environment["DEMO_BROKER"] = brokerName
        let (run, script) = try await demo(["--devices", "20", "--rate", "50"], environment: environment)
        #expect(
            try await run.waitForOutput(containing: "requests ", timeout: .seconds(120)), "\(run.output.suffix(3000))")
        let brokerFile = WorkerProcess.repositoryRoot.appendingPathComponent(".deps/run/\(brokerName).pid")
        let broker = try #require(
            Int32(try String(contentsOf: brokerFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        return (run, script, broker)
    }

    /// Every process of the script's group is gone (else they are killed, and false).
    private func groupGone(_ script: Int32) -> Bool {
        guard kill(-script, 0) == 0 else { return true }
        kill(-script, SIGKILL)
        return false
    }

    /// Each final status per message id, from the status topic `topic` read from outside.
    private func finalStatuses(in topic: String) async throws -> (
        perMessage: [String: Int], withoutID: Int, queued: Set<String>
    ) {
        var configuration = KafkaConsumerConfiguration(kafka: TestBroker.kafka(), groupID: nil)
        configuration.isolationLevel = .readCommitted
        let records = try await KafkaConsumer.readToEnd(
            (0..<4).map { TopicPartition(topic, $0) }, configuration: configuration, logger: BridgeFixture.logger)
        var perMessage: [String: Int] = [:]
        var withoutID = 0
        var queued: Set<String> = []
        for record in records {
            let json = try #require(
                record.value.flatMap {
                    try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) as? [String: Any]
                })
            let id = json["message_id"] as? String
            switch json["type"] as? String {
            case "queued":
                if let id { queued.insert(id) }
            case "dispatched", "collapsed", "expired", "validated", "rejected":
                if let id { perMessage[id, default: 0] += 1 } else { withoutID += 1 }
            case "deleted_messages":
                for id in json["message_ids"] as? [String] ?? [] { perMessage[id, default: 0] += 1 }
            default:
                break
            }
        }
        return (perMessage, withoutID, queued)
    }

    @Test("a bounded run ends with every request accounted for, through every kind of outcome")
    func boundedRun() async throws {
        let id = "demo-\(UUID().uuidString.prefix(8))"
        var environment = WorkerProcess.ownGroupAndTopics(id)
        environment["KAFKA_BOOTSTRAP_SERVERS"] = TestBroker.bootstrapServers
        let (run, script) = try await demo(
            ["--duration", "20", "--devices", "40", "--rate", "100"], environment: environment)
        let status = try await run.exitStatus(within: .seconds(180))
        let output = run.output
        #expect(groupGone(script))
        #expect(status == 0, "\(output.suffix(3000))")
        let verdict = try #require(
            output.firstMatch(
                of:
                    /demo finished after \S+: every outcome accounted for \((\d+) of (\d+) final statuses for (\d+) requests, 0 waiting, 0 repeated\)/
            ),
            "\(output.suffix(3000))")

        // From outside: each message the bridge queued or finished has exactly one final status,
        // and there are as many as the demo counted.
        let seen = try await finalStatuses(in: "\(id).status")
        #expect(seen.perMessage.values.allSatisfy { $0 == 1 }, "\(seen.perMessage.filter { $0.value != 1 })")
        #expect(seen.queued.subtracting(seen.perMessage.keys).isEmpty)
        #expect(seen.perMessage.count + seen.withoutID == Int(verdict.1))

        // The mix and the plan make every kind of outcome; the overflow bursts make full syncs.
        let summary = output.split(separator: "\n").filter { $0.hasPrefix("statuses") || $0.hasPrefix("devices") }
            .suffix(2).joined(separator: " ")
        var figures: [String: Int] = [:]
        for match in summary.matches(of: /([a-z_]+(?: syncs)?) (\d+)/) { figures[String(match.1)] = Int(match.2) }
        for name in [
            "queued", "dispatched", "delivered", "collapsed", "expired", "deleted_messages", "rejected", "validated",
            "full syncs",
        ] {
            #expect(figures[name, default: 0] > 0, "\(name): \(figures)")
        }
    }

    @Test("Ctrl-C stops the demo with a final summary, then the worker and the broker the script started")
    func interrupted() async throws {
        let (run, script, broker) = try await runningDemoWithOwnBroker(group: "demo")

        // Ctrl-C: SIGINT to the whole foreground process group.
        kill(-script, SIGINT)
        let status = try await run.exitStatus(within: .seconds(60))
        #expect(status == 0, "\(run.output.suffix(3000))")
        #expect(run.output.contains("demo stopped after"), "\(run.output.suffix(3000))")
        // Nothing of it is left: not the demo, not the worker, not the broker.
        #expect(groupGone(script))
        #expect(try await exited(broker), "the broker still runs")
    }

    @Test("Ctrl-C after the broker died: the summary at once, and the demo ends within its closing deadline")
    func interruptedWithoutBroker() async throws {
        // The worker's own shutdown cannot commit either; it is given a short deadline.
        let (run, script, broker) = try await runningDemoWithOwnBroker(
            group: "demo-gone", environment: ["FCM_BRIDGE_SHUTDOWN_TIMEOUT_MS": "2000"])
        kill(broker, SIGKILL)
        // The clients find the broker gone, with records of theirs still in flight.
        try await Task.sleep(for: .seconds(2))
        kill(-script, SIGINT)
        // The summary first, before the parts and the clients are given up on.
        #expect(
            try await run.waitForOutput(containing: "demo stopped after", timeout: .seconds(10)),
            "\(run.output.suffix(3000))")
        let status = try await run.exitStatus(within: .seconds(60))
        #expect(status == 0, "\(run.output.suffix(3000))")
        #expect(run.output.contains("did not close within 15.0 seconds"), "\(run.output.suffix(3000))")
        #expect(groupGone(script))
    }

    /// Whether process `pid` has exited (a zombie no one reaped yet counts), waiting up to 5 s.
    private func exited(_ pid: Int32) async throws -> Bool {
        for _ in 0..<50 {
            // /proc/PID/stat: "pid (name) state ...".
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let state = stat.split(separator: ")").last?.split(separator: " ").first
            else { return true }
            if state == "Z" { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        kill(pid, SIGKILL)
        return false
    }
}
