import BridgeConfig
import Foundation
import TestSupport
import Testing

/// A worker stopped gracefully leaves its stores covering every change it committed: its
/// successor on the same state directory restores from them alone, with no changelog tail, and
/// writes every device's row once it has restored.
@Suite("Stores across a graceful restart", .needsBroker, .timeLimit(.minutes(3)))
struct StoreRestartTests {
    @Test(
        "after a graceful stop the stores cover every committed change: the successor reads none from the changelog, and given device rows writes all of them",
        arguments: [BridgeConfiguration.Delivery.exactlyOnce, .atLeastOnce])
    func gracefulStopLeavesNoTail(delivery: BridgeConfiguration.Delivery) async throws {
        let fixture = try await BridgeFixture.make(partitions: 2, delivery: delivery)
        let directory = TemporaryDirectory()
        // Nothing is written to the stores on a timer: the stop is what writes them.
        let environment = [
            "FCM_BRIDGE_STATE_DIRECTORY": directory.path, "FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "3600000",
        ]
        let worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        let tokens = (0..<8).map { uniqueToken("store-restart\($0)") }
        let faults = FaultTests()
        for round in 0..<5 { _ = try await faults.sendRound(round, tokens: tokens, fixture: fixture) }
        let reader = try await fixture.outputs()
        for token in tokens { _ = try await reader.statuses(of: token, count: 5) }
        try await ServedFromRowsTests.subscribe(tokens, fixture: fixture)
        worker.terminate()

        // The successor keeps device rows, which the directory does not have yet: its restore
        // writes every device's row and every topic's members, though no input changes them after it.
        let successor = try WorkerProcess(
            fixture.configuration,
            extraEnvironment: environment.merging(["FCM_BRIDGE_STATE_DEVICE_ROWS": "true"]) { $1 }
        )
        #expect(try await successor.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        let line = successor.output.split(separator: "\n").first { $0.contains("restored device state") } ?? ""
        // Each device's record and its five waiting messages, all from the stores.
        #expect((Self.field("from_local_stores", of: line) ?? 0) >= tokens.count * 6, "\(line)")
        #expect(Self.field("changes", of: line) == 0, "changes read from the changelog: \(line)")
        successor.terminate()
        let compared = try await fixture.expectRowsHoldTheStores(in: directory.path)
        #expect(compared.partitions == 2 && compared.devices == tokens.count, "\(compared)")
    }

    /// The number a log line gives for `key` (`key=12`).
    static func field(_ key: String, of line: Substring) -> Int? {
        guard let range = line.range(of: " \(key)=") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}
