@testable import BridgeCore

/// The state a restore rebuilds from `changelog` (records as the processor wrote them) in state
/// partitions `partitions`: every record that `committed` keeps, as the worker's restore keeps
/// them, or every record when it is nil.
func replay(
    _ changelog: [OutputRecords.Copy], codec: ChangelogCodec, committed: CommittedInputs?, partitions: Range<Int32>
) -> DeviceStates {
    var restored = DeviceStates()
    for partition in partitions { restored.adopt(partition) }
    for copy in changelog where copy.topic == .changelog {
        if let committed {
            let header = copy.header(ChangelogInput.headerNameText)
            switch header.map({ $0.withUnsafeBytes { committed.verdict(header: $0) } }) ?? .unattributed {
            case .committed, .unattributed, .unknownInput: break
            case .uncommitted, .malformed: continue
            }
        }
        let record = consumed(copy, topic: codec.topic)
        if let change = try? codec.decode(record) { restored.restore(change, in: record.partition) }
    }
    return restored
}
