import BridgeCore
import BridgeStore

/// The devices a batch's changelog records change, by state partition, noted as the records are
/// made: at the seal the batch's device rows take each device as it then is
/// (``rows(in:)``), so that a row never carries a later, uncommitted batch's change.
struct ChangedDevices: Sendable {
    private var keys: [Int32: Set<DeviceKey>] = [:]

    /// Notes the device of each changelog record among `outputs`.
    mutating func add(changelogOf outputs: borrowing OutputRecords) {
        outputs.withUnsafeBytes { bytes in
            for record in outputs.records where record.topic == .changelog {
                // Changelog records always name their partition and have a key (ChangelogCodec).
                guard let partition = record.partition, let key = record.key,
                    let token = ChangelogCodec.deviceToken(ofKey: UnsafeRawBufferPointer(rebasing: bytes[key]))
                else { continue }
                keys[partition, default: []].insert(DeviceKey(token: token))
            }
        }
    }

    /// Each device noted, as `states` holds it (nil: forgotten); a partition `states` does not
    /// hold is left out.
    func rows(in states: DeviceStates) -> DeviceRowChanges {
        var rows = DeviceRowChanges()
        for (partition, keys) in keys {
            guard let devices = states.devices(in: partition) else { continue }
            for key in keys { rows.set(devices[key], for: key, in: partition) }
        }
        return rows
    }
}
