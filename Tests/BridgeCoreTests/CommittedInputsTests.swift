import FCMTranslation
import Testing

@testable import BridgeCore

@Suite("Committed inputs")
struct CommittedInputsTests {
    static let send = CommittedInputs.Input(.send, partition: 3)
    static let repartition = CommittedInputs.Input(.repartition, partition: 3)
    static let inputs = CommittedInputs([send: 100, repartition: 0, .init(.presence, partition: 3): -1001])

    @Test(
        "a changelog record is kept only when its input's committed offset is past it",
        arguments: [
            ("s:3:99", CommittedInputs.Verdict.committed),
            ("s:3:0", .committed),
            ("s:3:100", .uncommitted(send, offset: 100)),
            ("s:3:9223372036854775807", .uncommitted(send, offset: .max)),
            ("r:3:0", .uncommitted(repartition, offset: 0)),
            ("s:4:1", .unknownInput(.init(.send, partition: 4))),
            // None committed (a new group, or offsets that expired): replayed as written.
            ("p:3:1", .unknownInput(.init(.presence, partition: 3))),
            ("x:3:1", .malformed),
            ("send:3:1", .malformed),
            ("s:3:", .malformed),
            ("s::5", .malformed),
            ("s:3:-1", .malformed),
            ("s:-3:1", .malformed),
            ("s:2147483648:1", .malformed),
            ("s:3:99999999999999999999", .malformed),
            ("s:3:1:2", .malformed),
            ("s", .malformed),
            ("", .malformed),
        ])
    func verdict(header: String, expected: CommittedInputs.Verdict) {
        #expect(Array(header.utf8).withUnsafeBytes { Self.inputs.verdict(header: $0) } == expected)
    }

    @Test("every input's letter reads back as itself", arguments: ChangelogInput.Topic.allCases)
    func letters(topic: ChangelogInput.Topic) {
        var writer = ByteWriter(capacity: 32)
        ChangelogInput(topic, partition: 7, offset: 12_345).write(to: &writer)
        #expect(
            writer.withUnsafeBytes { ChangelogInput.parse($0) } == ChangelogInput(topic, partition: 7, offset: 12_345))
    }

    @Test("a record without an input header, written before records named one, is kept")
    func unattributed() {
        #expect(Self.inputs.verdict(header: nil) == .unattributed)
    }

    @Test("the processor names each changelog record's input, in the form the restore reads")
    func processorNamesTheInput() throws {
        var worker = SubscriptionFlowTests.Worker()
        let written = worker.subscriptionRequest(SubscriptionFlowTests.subscribe("news", ["a", "b"]))
        let changelog = written.filter { $0.topic == .changelog }
        #expect(changelog.count >= 4, "each device's topic and the topic's member, both")
        let committed = worker.committedInputs
        for copy in changelog {
            let header = try #require(copy.header(ChangelogInput.headerNameText))
            #expect(String(decoding: header, as: UTF8.self).hasPrefix("r:"))
            #expect(header.withUnsafeBytes { committed.verdict(header: $0) } == .committed)
        }
    }
}
