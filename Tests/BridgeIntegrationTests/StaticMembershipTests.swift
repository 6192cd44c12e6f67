import Foundation
import TestSupport
import Testing

/// Workers with a `kafka.group_instance_id` are static members: a worker restarted under the same
/// id within the session timeout takes its own partitions back, and the others keep theirs
/// without a rebalance. On the real broker named by `KAFKA_BOOTSTRAP_SERVERS`.
@Suite("Static membership", .needsBroker, .timeLimit(.minutes(3)))
struct StaticMembershipTests {
    @Test("a static member restarted within the session timeout gets its partitions back; the other sees no rebalance")
    func restartMovesNothing() async throws {
        let fixture = try await BridgeFixture.make(partitions: 4) {
            // Room for a loaded machine to stop a worker and start its successor.
            $0.kafka.consumerProperties["session.timeout.ms"] = "20000"
        }
        func worker(_ id: String) throws -> WorkerProcess {
            var configuration = fixture.configuration
            configuration.kafka.groupInstanceID = id
            return try WorkerProcess(configuration)
        }
        let other = try worker("other")
        #expect(try await other.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        let restarted = try worker("restarted")
        // The second member's join revokes the first's partitions (eager): the line this test
        // watches for is there.
        #expect(try await Self.settled([other, restarted]), "the group did not settle")
        #expect(other.output.contains("partitions revoked"), "\(other.output)")
        let before = Self.count("partitions revoked", in: other.output)
        let owned = try #require(Self.lastAssignment(in: restarted.output))

        restarted.terminate()
        let successor = try worker("restarted")
        #expect(try await successor.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        #expect(Self.lastAssignment(in: successor.output) == owned)
        #expect(Self.count("partitions revoked", in: other.output) == before, "\(other.output)")
        successor.terminate()
        other.terminate()
    }

    /// Waits until every worker has restored partitions and no log has changed its assignment for
    /// 5 s; false if that takes more than 90 s.
    static func settled(_ workers: [WorkerProcess]) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(90)
        var last: [String?] = []
        var since = ContinuousClock.now
        while ContinuousClock.now < deadline {
            let now = workers.map { lastAssignment(in: $0.output) }
            if now != last {
                (last, since) = (now, .now)
            } else if now.allSatisfy({ $0 != nil }), ContinuousClock.now - since > .seconds(5),
                workers.allSatisfy({ count("restored device state", in: $0.output) > 0 })
            {
                return true
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        return false
    }

    /// What the last `partitions assigned` line of `log` names.
    static func lastAssignment(in log: String) -> String? {
        log.split(separator: "\n").last { $0.contains("partitions assigned") }.flatMap { line in
            line.range(of: "partitions assigned").map { String(line[$0.upperBound...]) }
        }
    }

    static func count(_ text: String, in log: String) -> Int {
        log.split(separator: "\n").count { $0.contains(text) }
    }
}
