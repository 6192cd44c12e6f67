import BridgeConfig
import Foundation
import Kafka
import NIOCore
import TestSupport
import Testing

/// A state directory on a full file system (a small tmpfs, where this machine lets the tests
/// mount one) stops the worker with an error naming `state.directory`; its successor delivers
/// every message.
@Suite(
    "A full state directory", .needsBroker, .timeLimit(.minutes(3)),
    .enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs CAP_SYS_ADMIN"))
struct FullDiskTests {
    @Test("the worker stops naming state.directory; its successor delivers every message exactly once")
    func fullDisk() async throws {
        let fileSystem = try SmallFileSystem(kilobytes: 1_024)
        defer { fileSystem.unmount() }
        let fixture = try await BridgeFixture.make(partitions: 2)
        let worker = try WorkerProcess(
            fixture.configuration, extraEnvironment: ["FCM_BRIDGE_STATE_DIRECTORY": fileSystem.path])
        #expect(try await worker.waitForOutput(containing: "restored device state", timeout: .seconds(60)))
        // About 1 KiB a message, to devices that stay offline (fewer rounds than a device may have
        // waiting): more than the file system holds, with the stores' pages and write-ahead log.
        let tokens = (0..<24).map { uniqueToken("full\($0)") }
        let title = String(repeating: "x", count: 1_000)
        var expected: [String: [String]] = [:]
        for round in 0..<90 {
            let records = tokens.map { token in
                ProducerRecord(
                    topic: fixture.configuration.topics.send, key: ByteBuffer(string: token),
                    value: ByteBuffer(string: Requests.legacy(token, title: "\(round) \(title)")),
                    timestamp: testEpoch + Int64(round))
            }
            for (token, report) in zip(tokens, try await fixture.produce(records)) {
                expected[token, default: []].append("\(report.partition):\(report.offset):0")
            }
        }
        let status = try await worker.exitStatus(within: .seconds(60))
        #expect(status != nil && status != 0, "the worker stops")
        #expect(
            worker.output.contains("state.directory \(fileSystem.path) cannot write"), "\(worker.output.suffix(2_000))")

        let successor = try WorkerProcess(fixture.configuration)
        try await FaultTests().expectEverythingDelivered(expected, fixture: fixture, exactlyOnce: true)
        successor.terminate()
    }
}
