import BridgeConfig
import FCMTranslation
import Logging
import NIOCore
import Testing

@testable import BridgeCore

/// What a run of outputs is, as the metrics and the rejection log see it: counted as written.
@Suite("Output tally")
struct OutputTallyTests {
    let test = RecordProcessorTests()

    @Test(
        "each input's outputs are counted by topic, status type and rejection reason; rejected inputs are noted with their source",
        arguments: [
            (
                #"{"to": "device-a", "data": {"k": "v"}}"#, [OutputTopic.status: 1, .changelog: 2],
                [StatusType.queued: 1], [], nil as String?
            ),
            (
                "not JSON", [.status: 1, .deadLetters: 1], [.rejected: 1], [Rejection.Reason.invalidArgument],
                "invalid_argument"
            ),
            (
                #"{"to": "device-a", "data": {"from": "x"}}"#, [.status: 1], [.rejected: 1], [.invalidDataKey],
                "invalid_data_key"
            ),
            (#"{"to": "device-a", "dry_run": true}"#, [.status: 1], [.validated: 1], [], nil),
        ] as [(String, [OutputTopic: Int], [StatusType: Int], [Rejection.Reason], String?)])
    func counts(
        request: String, records: [OutputTopic: Int], statuses: [StatusType: Int], reasons: [Rejection.Reason],
        noted: String?
    ) {
        var states = test.heldStates()
        var outputs = OutputRecords()
        test.processor().process(
            known: test.send(request, partition: test.owner, offset: 7), states: &states, outputs: &outputs)
        let tally = outputs.tally
        for topic in OutputTopic.allCases { #expect(tally.records[topic.rawValue] == records[topic] ?? 0, "\(topic)") }
        for type in StatusType.allCases { #expect(tally.statuses[type.rawValue] == statuses[type] ?? 0, "\(type)") }
        for (index, reason) in Rejection.Reason.allCases.enumerated() {
            #expect(tally.rejections[index] == (reasons.contains(reason) ? 1 : 0), "\(reason)")
        }
        #expect(tally.notes.map(\.reason) == (noted.map { [$0] } ?? []))
        #expect(tally.notes.allSatisfy { $0.source == "\(test.topics.send)[\(test.owner)]@7" })
        #expect(tally.records.reduce(0, +) == outputs.count)
    }

    @Test("notes stop at the maximum and the rest are counted, also when tallies are added")
    func notesAreBounded() {
        var outputs = OutputRecords()
        var states = test.heldStates()
        let processor = test.processor()
        for offset in 0..<(OutputTally.maximumNotes + 5) {
            processor.process(
                known: test.send("garbage", partition: 0, offset: Int64(offset)), states: &states, outputs: &outputs)
        }
        #expect(outputs.tally.notes.count == OutputTally.maximumNotes && outputs.tally.unnotedRejections == 5)
        var total = OutputTally()
        total.add(outputs.tally)
        total.add(outputs.tally)
        #expect(
            total.notes.count == OutputTally.maximumNotes && total.unnotedRejections == OutputTally.maximumNotes + 10)
        #expect(total.statuses[StatusType.rejected.rawValue] == 2 * (OutputTally.maximumNotes + 5))
        outputs.removeAll()
        #expect(outputs.tally == OutputTally())
    }
}
