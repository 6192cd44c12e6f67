import BridgeConfig
import Logging
import NIOCore
import TestSupport
import Testing

@testable import BridgeCore
@testable import BridgeWorker

/// A flood of bad input cannot flood the log: each window logs a bounded number of rejections,
/// then says how many it held back.
@Suite("Rejection log")
struct RejectionLogTests {
    @Test("at most the window's share of lines, each with reason and source; the rest counted when the window ends")
    func rateLimited() throws {
        let lines = LogLines()
        let start = ContinuousClock.now
        var log = RejectionLog(logger: Logger(label: "test") { _ in lines.handler }, now: start)
        var outputs = OutputRecords()
        var states = DeviceStates()
        let configuration = BridgeConfiguration(kafka: .init(bootstrapServers: "unused:9092"))
        let processor = RecordProcessor(
            configuration: configuration, statePartitions: 2, colocatedTopics: [],
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        for offset in 0..<(RejectionLog.maximumPerWindow + 30) {
            let record = InMemoryRecord(
                topic: configuration.topics.send, partition: 1, offset: Int64(offset), key: nil,
                value: ByteBuffer(string: "garbage"), createTime: 1)
            try processor.process(record, states: &states, outputs: &outputs)
            log.log(outputs.tally, now: start)
            outputs.removeAll()
        }
        let logged = lines.lines.withLock { $0 }
        #expect(logged.count == RejectionLog.maximumPerWindow)
        #expect(
            logged.allSatisfy {
                $0.contains("written to the dead letter topic") && $0.contains("reason=invalid_argument")
                    && $0.contains("source=fcm.send[1]@")
            })

        log.endWindowIfDue(now: start + RejectionLog.window - .milliseconds(1))
        #expect(lines.lines.withLock { $0.count } == RejectionLog.maximumPerWindow, "the window is not over yet")
        log.endWindowIfDue(now: start + RejectionLog.window)
        let last = lines.lines.withLock { $0.last } ?? ""
        #expect(last.contains("not logged") && last.contains("suppressed=30"), "\(last)")

        log.endWindowIfDue(now: start + RejectionLog.window * 2)
        #expect(lines.lines.withLock { $0.count } == RejectionLog.maximumPerWindow + 1, "an empty window says nothing")
    }
}
