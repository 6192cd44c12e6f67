import BridgeCore
import DeviceQueues
import DeviceStore

/// Devices to write to their partitions' rows (``DeviceRows``), each as it was when the batch
/// that last changed it was sealed, nil once forgotten; and the partitions whose rows are
/// replaced whole (a restore rebuilt their state), by exactly the devices given.
public struct DeviceRowChanges: Sendable {
    /// By partition, each device's latest value.
    private var devices: [Int32: [DeviceKey: DeviceQueue?]] = [:]
    /// The partitions whose rows hold exactly their devices here once written.
    private var replaced: Set<Int32> = []

    /// No devices.
    public init() {}

    /// Whether no device or partition is to be written.
    public var isEmpty: Bool { devices.isEmpty }

    /// The partitions noted, with or without devices.
    public var partitions: Dictionary<Int32, [DeviceKey: DeviceQueue?]>.Keys { devices.keys }

    /// Notes `partition`, with or without devices: its rows' checkpoint moves at the next write.
    public mutating func touch(_ partition: Int32) {
        if devices[partition] == nil { devices[partition] = [:] }
    }

    /// Whether anything is noted of `partition`.
    public func holds(_ partition: Int32) -> Bool { devices[partition] != nil }

    /// Notes `device` (nil: forgotten) as the latest of `key` in `partition`.
    public mutating func set(_ device: DeviceQueue?, for key: DeviceKey, in partition: Int32) {
        devices[partition, default: [:]][key] = .some(device)
    }

    /// Notes that `partition`'s rows are to hold exactly `held`, whatever was noted of it before.
    public mutating func replace(_ partition: Int32, with held: [DeviceKey: DeviceQueue]) {
        devices[partition] = held.mapValues { .some($0) }
        replaced.insert(partition)
    }

    /// Adds `later`'s devices over these: the latest value of each device wins, and a partition
    /// `later` replaces drops what was noted of it here.
    public mutating func append(contentsOf later: DeviceRowChanges) {
        for (partition, changed) in later.devices {
            if later.replaced.contains(partition) {
                devices[partition] = changed
                replaced.insert(partition)
            } else {
                devices[partition, default: [:]].merge(changed) { _, later in later }
            }
        }
    }

    /// Drops the devices of the partitions `isDropped` names.
    public mutating func removeAll(ofPartitions isDropped: (Int32) -> Bool) {
        devices = devices.filter { !isDropped($0.key) }
        replaced = replaced.filter { !isDropped($0) }
    }

    /// Writes the devices of `partition` to `rows` with `checkpoint`, all or nothing: in one
    /// batch, or in one load that replaces every row when the partition is replaced whole.
    func write(_ partition: Int32, to rows: DeviceRows, checkpoint: Int64) throws(DeviceStoreError) {
        let changed = devices[partition] ?? [:]
        if replaced.contains(partition) {
            try rows.replaceAll(
                with: changed.compactMap { key, device in device.map { (key.token, $0) } }, checkpoint: checkpoint)
        } else {
            try rows.write(changed.map { ($0.key.token, $0.value) }, checkpoint: checkpoint)
        }
    }
}
