import BridgeCore
import BridgeStore
import DeviceStore

/// The devices a batch's changelog records change, by state partition, and the ids of the
/// messages that joined or left their queues, noted as the records are made: at the seal the
/// batch's device rows take each device as it then is (``rows(in:)``), so that a row never
/// carries a later, uncommitted batch's change. The members that join or leave a topic are noted
/// as the records say, in order. A partition whose records change other topic state only is
/// noted too: its rows' checkpoint moves with its store's, so that rows stay in step with a store
/// that devices did not change.
struct ChangedRows: Sendable {
    private var keys: [Int32: [DeviceKey: Set<String>]] = [:]
    private var members: [Int32: [MemberRowChange]] = [:]

    /// Notes the partition, and the device if any, of each changelog record among `outputs`.
    mutating func add(changelogOf outputs: borrowing OutputRecords) {
        outputs.withUnsafeBytes { bytes in
            for record in outputs.records where record.topic == .changelog {
                // Changelog records always name their partition and have a key (ChangelogCodec).
                guard let partition = record.partition, let range = record.key else { continue }
                let key = UnsafeRawBufferPointer(rebasing: bytes[range])
                guard let (token, messageID) = ChangelogCodec.deviceRow(ofKey: key) else {
                    if keys[partition] == nil { keys[partition] = [:] }
                    if let (topic, token) = ChangelogCodec.member(ofKey: key) {
                        let change = MemberRowChange(topic: topic, token: token, isMember: record.value != nil)
                        members[partition, default: []].append(change)
                    }
                    continue
                }
                let ids = messageID.map { [$0] } ?? []
                keys[partition, default: [:]][DeviceKey(token: token), default: []].formUnion(ids)
            }
        }
    }

    /// Each device noted, as `states` holds it (nil: forgotten), and each partition noted with
    /// its counts when it is served from its rows; a partition `states` does not hold is left out.
    func rows(in states: DeviceStates) -> DeviceRowChanges {
        var rows = DeviceRowChanges()
        for (partition, keys) in keys {
            guard let devices = states.devices(in: partition) else { continue }
            rows.touch(partition, counts: states.counts(in: partition))
            if let members = members[partition] { rows.add(members, of: partition, countedIn: states) }
            guard !keys.isEmpty else { continue }
            var changes: [DeviceKey: DeviceRowChanges.Change] = [:]
            changes.reserveCapacity(keys.count)
            for (key, ids) in keys {
                changes[key] = DeviceRowChanges.Change(device: devices[key], messages: .named(ids))
            }
            rows.add(changes, to: partition)
        }
        return rows
    }
}

extension DeviceRowChanges {
    /// Notes `members`, the joins and leaves of one batch of `partition`'s topics, with each
    /// changed topic's member count as `states` holds it now.
    mutating func add(_ members: [MemberRowChange], of partition: Int32, countedIn states: DeviceStates) {
        add(members, counts: states.topics.memberCounts(of: members.lazy.map(\.topic), in: partition), to: partition)
    }
}
