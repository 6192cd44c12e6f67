import Foundation
import TestSupport
import Testing

/// Workers with state directories through a real eager rebalance: the partitions a worker keeps
/// resume the state it set aside, and that state holds everything it held.
@Suite("Rebalances with local stores", .needsBroker, .timeLimit(.minutes(3)))
struct RebalanceResumeTests {
    @Test("partitions a rebalance revokes and gives back resume their state, which holds every waiting message")
    func keptPartitionsResume() async throws {
        let fixture = try await BridgeFixture.make(partitions: 4)
        let firstDirectory = TemporaryDirectory()
        let secondDirectory = TemporaryDirectory()
        let paths = [firstDirectory.path, secondDirectory.path]
        // Nothing is written to the stores on a timer: the revocation is what writes them.
        func worker(_ index: Int) throws -> WorkerProcess {
            try WorkerProcess(
                fixture.configuration,
                extraEnvironment: [
                    "FCM_BRIDGE_STATE_DIRECTORY": paths[index], "FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "3600000",
                ])
        }
        let first = try worker(0)
        #expect(try await first.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        let tokens = (0..<40).map { uniqueToken("resume\($0)") }
        let faults = FaultTests()
        var expected: [String: [String]] = [:]
        for (token, id) in zip(tokens, try await faults.sendRound(0, tokens: tokens, fixture: fixture)) {
            expected[token, default: []].append(id)
        }
        // Every partition's store covers the waiting messages once their batches commit.
        let reader = try await fixture.outputs()
        #expect(
            try await reader.waitUntil(timeout: .seconds(60), "a status per send") { $0.statuses.count >= tokens.count }
        )

        let second = try worker(1)
        #expect(try await StaticMembershipTests.settled([first, second]), "the group did not settle")
        let restores = first.output.split(separator: "\n").filter { $0.contains("restored device state") }
        #expect(restores.count >= 2, "\(first.output)")
        let resumed = restores.dropFirst().first { !$0.contains("resumed_in_memory=[]") }
        #expect(resumed != nil, "the first worker replayed what it kept: \(restores)")
        // The revoked partitions' stores covered every committed change as they were let go:
        // nothing was read from the changelog to resume them.
        #expect(resumed.map { StoreRestartTests.field("changes", of: $0) == 0 } != false, "\(restores)")
        for (token, id) in zip(tokens, try await faults.sendRound(1, tokens: tokens, fixture: fixture)) {
            expected[token, default: []].append(id)
        }
        try await faults.expectEverythingDelivered(expected, fixture: fixture, exactlyOnce: false)
        second.terminate()
        first.terminate()
    }
}
