import Testing

@testable import BridgeCore

@Suite("Committed inputs")
struct CommittedInputsTests {
    static let send = CommittedInputs.Input(topic: "fcm.send", partition: 3)
    static let repartition = CommittedInputs.Input(topic: "fcm-bridge.repartition", partition: 3)
    static let inputs = CommittedInputs([send: 100, repartition: -1001])

    @Test(
        "a changelog record is kept only when its input's committed offset is past it",
        arguments: [
            ("fcm.send:3:99", CommittedInputs.Verdict.committed),
            ("fcm.send:3:0", .committed),
            ("fcm.send:3:100", .uncommitted(send, offset: 100)),
            ("fcm.send:3:9223372036854775807", .uncommitted(send, offset: .max)),
            // Nothing committed yet: nothing of it counts.
            ("fcm-bridge.repartition:3:0", .uncommitted(repartition, offset: 0)),
            ("fcm.send:4:1", .unknownInput(.init(topic: "fcm.send", partition: 4))),
            ("fcm.sen:3:1", .unknownInput(.init(topic: "fcm.sen", partition: 3))),
            ("fcm.send:3:", .malformed),
            ("fcm.send::5", .malformed),
            (":3:5", .malformed),
            ("fcm.send:3:-1", .malformed),
            ("fcm.send:-3:1", .malformed),
            ("fcm.send:2147483648:1", .malformed),
            ("fcm.send:3:99999999999999999999", .malformed),
            ("fcm.send", .malformed),
            ("", .malformed),
        ])
    func verdict(header: String, expected: CommittedInputs.Verdict) {
        #expect(Array(header.utf8).withUnsafeBytes { Self.inputs.verdict(header: $0) } == expected)
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
            let header = try #require(copy.header("\(ChangelogInput.headerName)"))
            #expect(String(decoding: header, as: UTF8.self).hasPrefix(worker.processor.repartition.topic + ":"))
            #expect(header.withUnsafeBytes { committed.verdict(header: $0) } == .committed)
        }
    }
}
