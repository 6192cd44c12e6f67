import BridgeConfig
import BridgeCore
import NIOCore

/// The record processor: a run of send (to devices, topics and conditions), presence and
/// subscription records, each with its own partition and timestamp, through the queues and topic
/// state of two state partitions. What it forwards comes back through
/// the repartition topic, as the worker's consumer would read it. Every output fits a record,
/// statuses and inbox records are JSON objects, one record causes a bounded number of outputs,
/// and every changelog record it writes names the input it came from and reads back, into a
/// state with as many devices, memberships and fan-outs in progress.
///
/// An input is records separated by 0xFF (which UTF-8 never holds): a control byte, then the
/// value. The control byte picks the topic (bits 0-1: send, send, presence, subscriptions), the timestamp (bits 2-4), the partition
/// (bit 5), a null value (bit 6) and whether the value doubles as the key (bit 7).
enum ProcessorHarness {
    /// A record's CreateTime by control bits 2-4; slot 1 (``increasing``) adds the record's index.
    static let timestamps: [Int64?] = [nil, increasing, 1_700_000_000_000, 1_700_003_600_000, -1, 0, .max, .min]
    static let increasing: Int64 = 1_699_999_000_000
    /// The most outputs one input record may cause: a status, an inbox and two changelog records
    /// for each of 1,000 tokens, and what the idle sweep adds.
    static let maximumOutputsPerRecord = 5_000

    static let processor = Fuzzing.processor(statePartitions: 2)
    static let codec = ChangelogCodec(topic: Fuzzing.configuration.changelogTopic)

    static func run(_ input: ArraySlice<UInt8>) {
        let configuration = Fuzzing.configuration
        var states = DeviceStates()
        var restored = DeviceStates()
        for partition: Int32 in 0..<2 {
            states.adopt(partition)
            restored.adopt(partition)
        }
        var pending = records(from: input, topics: configuration.topics)
        var offset: Int64 = 0
        // One buffer for many records, emptied now and then, as the worker's.
        var outputs = OutputRecords()
        while !pending.isEmpty, offset < 1_000 {
            let record = pending.removeFirst()
            if outputs.count > 64 { outputs.removeAll() }
            let first = outputs.count
            Fuzzing.process(record, with: processor, states: &states, outputs: &outputs)
            // Committed up to this record and no further: each changelog record names it.
            let role: ChangelogInput.Topic =
                [
                    configuration.topics.send: .send, configuration.topics.presence: .presence,
                    configuration.topics.subscriptions: .subscriptions,
                ][record.topic] ?? .repartition
            let input = CommittedInputs.Input(role, partition: record.partition)
            let thisRecordOnly = CommittedInputs([input: record.offset + 1])
            let nextOnly = CommittedInputs([input: record.offset])
            let written = outputs.count - first
            Fuzzing.expect(written <= maximumOutputsPerRecord, "\(written) outputs of one record")
            for output in (first..<outputs.count).map({ outputs.copy(at: $0) }) {
                offset += 1
                let size =
                    (output.key?.count ?? 0) + (output.value?.count ?? 0)
                    + output.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.count }
                Fuzzing.expect(size <= Fuzzing.limits.maxRecordBytes, "an output of \(size) bytes to \(output.topic)")
                let consumed = InMemoryRecord(
                    topic: output.topic == .changelog ? configuration.changelogTopic : configuration.repartitionTopic,
                    partition: output.partition ?? 0, offset: offset, key: output.key.map { ByteBuffer(bytes: $0) },
                    value: output.value.map { ByteBuffer(bytes: $0) }, createTime: output.timestamp,
                    headers: Dictionary(output.headers.map { ($0.name, String(decoding: $0.value, as: UTF8.self)) }) {
                        first, _ in first
                    }
                )
                switch output.topic {
                case .status, .inbox:
                    Fuzzing.expectJSONObject(output.value ?? [], "a \(output.topic) record")
                case .repartition:
                    pending.append(consumed)
                case .changelog:
                    let header = output.header(ChangelogInput.headerNameText)
                    let verdicts = header.map { bytes in
                        bytes.withUnsafeBytes { [thisRecordOnly.verdict(header: $0), nextOnly.verdict(header: $0)] }
                    }
                    Fuzzing.expect(
                        verdicts == [.committed, .uncommitted(input, offset: record.offset)],
                        "a changelog record names its input as \(verdicts.map { "\($0)" } ?? "nothing")")
                    do {
                        restored.restore(try codec.decode(consumed), in: consumed.partition)
                    } catch {
                        fatalError("finding: a changelog record the processor wrote does not read back: \(error)")
                    }
                case .deadLetters:
                    break
                }
            }
        }
        Fuzzing.expect(
            restored.deviceCount == states.deviceCount,
            "the changelog restores \(restored.deviceCount) devices of \(states.deviceCount)")
        Fuzzing.expect(
            restored.topics.membershipCount == states.topics.membershipCount,
            "the changelog restores \(restored.topics.membershipCount) memberships of \(states.topics.membershipCount)")
        Fuzzing.expect(
            restored.topics.fanOutsInProgress == states.topics.fanOutsInProgress,
            "the changelog restores fan-outs \(restored.topics.fanOutsInProgress) of \(states.topics.fanOutsInProgress)"
        )
        Fuzzing.expect(restored.topics == states.topics, "the changelog restores other topic state than the live one")
    }

    /// The records `input` describes, at most 64.
    static func records(from input: ArraySlice<UInt8>, topics: BridgeConfiguration.Topics) -> [InMemoryRecord] {
        input.split(separator: 0xFF, omittingEmptySubsequences: true).prefix(64).enumerated().map { index, chunk in
            let control = chunk[chunk.startIndex]
            let value = ByteBuffer(bytes: chunk.dropFirst())
            return InMemoryRecord(
                topic: [topics.send, topics.send, topics.presence, topics.subscriptions][Int(control & 0b11)],
                partition: Int32(control >> 5 & 1), offset: Int64(index),
                key: control & 0x80 != 0 ? value : nil, value: control & 0x40 != 0 ? nil : value,
                createTime: control >> 2 & 0b111 == 1
                    ? increasing + Int64(index) : timestamps[Int(control >> 2 & 0b111)]
            )
        }
    }
}
