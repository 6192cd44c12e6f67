import BridgeConfig
import BridgeCore
import FCMTranslation
import NIOCore

/// The changelog codec on records nobody wrote as the bridge would: whatever it reads back is
/// restored, and the device then connects, acknowledges and is sent a message. A changelog is
/// the bridge's own topic, but a restore must not trap on a record it cannot read.
///
/// An input is the record's parts separated by 0xFF: key, value, `collapse-key` header,
/// `expires-at` header, and a last part whose first byte picks the timestamp and a null value.
enum ChangelogHarness {
    static func run(_ input: ArraySlice<UInt8>) {
        let parts = input.split(separator: 0xFF, maxSplits: 4, omittingEmptySubsequences: false)
        func part(_ index: Int) -> ArraySlice<UInt8> { index < parts.count ? parts[index] : [] }
        let control = part(4).first ?? 0
        let configuration = Fuzzing.configuration
        let topics = configuration.topics
        var headers: [String: String] = [:]
        if parts.count > 2 { headers["collapse-key"] = String(decoding: part(2), as: UTF8.self) }
        if parts.count > 3 { headers["expires-at"] = String(decoding: part(3), as: UTF8.self) }
        let record = InMemoryRecord(
            topic: configuration.changelogTopic, partition: 0, offset: 0, key: ByteBuffer(bytes: part(0)),
            value: control & 0x40 != 0 ? nil : ByteBuffer(bytes: part(1)),
            createTime: ProcessorHarness.timestamps[Int(control & 0b111)], headers: headers
        )
        guard let change = try? ProcessorHarness.codec.decode(record) else { return }
        var states = DeviceStates()
        states.adopt(0)
        states.restore(change, in: 0)
        // The device the change is about; a walk's or a tally's inputs go to some device.
        let token =
            switch change {
            case .device(let token, _), .topic(.member(_, let token, _)), .topic(.deviceTopic(let token, _, _)),
                .topic(.conditionCopies(let token, _)):
                token
            case .topic: "fuzz-device"
            }

        let processor = Fuzzing.processor(statePartitions: 1)
        let quoted = String(decoding: ByteWriter.array { JSONOutput.writeString(token, to: &$0) }, as: UTF8.self)
        let inputs = [
            (topics.presence, #"{"token":\#(quoted),"event":"connect"}"#),
            (topics.presence, #"{"token":\#(quoted),"event":"ack","message_ids":["0:0:0"]}"#),
            (topics.send, #"{"to":\#(quoted),"notification":{"title":"t"}}"#),
        ]
        var outputs = OutputRecords()
        for (offset, (topic, value)) in inputs.enumerated() {
            let input = InMemoryRecord(
                topic: topic, partition: 0, offset: Int64(offset), value: ByteBuffer(string: value),
                createTime: 1_700_000_000_000 + Int64(offset))
            Fuzzing.process(input, with: processor, states: &states, outputs: &outputs)
        }
    }
}
