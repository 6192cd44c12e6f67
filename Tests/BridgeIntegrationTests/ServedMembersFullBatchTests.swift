import Foundation
import TestSupport
import Testing

/// A worker serving topics' members from its device rows reads what a poll's records need
/// before it processes them. A batch that fills in the middle of a poll commits and seals, which
/// lets go of those reads, so the rest of the poll is read again; the smallest batches make that
/// likelier, though a poll's records come as the broker hands them over.
@Suite("Topics' members served from the rows, in small batches", .needsBroker, .timeLimit(.minutes(4)))
struct ServedMembersFullBatchTests {
    @Test("subscribed again and half unsubscribed in small batches, a topic counts and reaches exactly its members")
    func fullBatches() async throws {
        let fixture = try await BridgeFixture.make(partitions: 2)
        let directory = TemporaryDirectory()
        // The smallest batches: a poll's outputs go to the producer 2,000 at a time, which fill one.
        let environment = [
            "FCM_BRIDGE_STATE_DIRECTORY": directory.path, "FCM_BRIDGE_STATE_DEVICE_ROWS": "true",
            "FCM_BRIDGE_STATE_DEVICES_HELD": "10", "FCM_BRIDGE_STATE_WRITE_INTERVAL_MS": "100",
            "FCM_BRIDGE_MAX_BATCH_BYTES": "65536",
        ]
        let worker = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        let address = try #require(try await worker.httpAddress(), "no endpoints: \(worker.output)")
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        let tokens = (0..<3_000).map { uniqueToken("crowd\($0)") }
        let requests = stride(from: 0, to: tokens.count, by: 100).map { Array(tokens[$0..<$0 + 100]) }
        let reader = try await fixture.outputs()
        for request in requests {
            try await fixture.subscription("subscribe", topic: "crowd", tokens: request, at: testEpoch)
        }
        try await reader.waitUntil(timeout: .seconds(120), "every subscribed") { reader in
            reader.statuses.count { $0.json["type"] == .string("subscribed") } >= tokens.count
        }
        try await Task.sleep(for: .seconds(1))
        // Every request again, and half of them out, produced together: polls of many hops.
        for request in requests {
            try await fixture.subscription("subscribe", topic: "crowd", tokens: request, at: testEpoch + 1)
        }
        let leaving = Set(requests.enumerated().filter { $0.offset % 2 == 1 }.flatMap(\.element))
        for (index, request) in requests.enumerated() where index % 2 == 1 {
            try await fixture.subscription("unsubscribe", topic: "crowd", tokens: request, at: testEpoch + 2)
        }
        try await reader.waitUntil(timeout: .seconds(120), "every unsubscribed") { reader in
            reader.statuses.count { $0.json["type"] == .string("unsubscribed") } >= leaving.count
        }
        let members = tokens.filter { !leaving.contains($0) }
        var metrics = ""
        let counted = await eventually(timeout: .seconds(30), every: .seconds(1)) {
            metrics = (try? await httpGet(address, "/metrics").body) ?? ""
            return sample("fcm_bridge_topic_memberships", in: metrics) == Double(members.count)
        }
        #expect(counted, "\(metrics.split(separator: "\n").filter { $0.contains("fcm_bridge_topic") })")
        #expect(!worker.output.contains("was not read from the device rows"), "\(worker.output.suffix(2_000))")
        worker.terminate()

        // The rows lost, as with a volume: the restore rebuilds them and holds every member until
        // they hold them, then serves them from the rows.
        for rows in try FileManager.default.contentsOfDirectory(atPath: directory.path) where rows.hasSuffix(".rows") {
            try FileManager.default.removeItem(atPath: "\(directory.path)/\(rows)")
        }
        let successor = try WorkerProcess(fixture.configuration, extraEnvironment: environment)
        defer { successor.kill() }
        let restarted = try #require(try await successor.httpAddress(), "no endpoints: \(successor.output)")
        #expect(try await successor.waitForOutput(containing: "from_device_rows=[]", timeout: .seconds(60)))
        try await ServedFromRowsTests.expectTopicSendFromRows(
            to: members, of: "crowd", besides: 0, at: restarted, fixture: fixture)
        #expect(!successor.output.contains("was not read from the device rows"), "\(successor.output.suffix(2_000))")
    }
}
