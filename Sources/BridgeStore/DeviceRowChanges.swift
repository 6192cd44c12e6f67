import BridgeCore
import DeviceQueues
import DeviceStore

/// Devices to write to their partitions' rows (``DeviceRows``), each as it was when the batch
/// that last changed it was sealed, nil once forgotten, with the ids of the messages that joined
/// or left its queue since its rows were written; and the partitions whose rows are replaced
/// whole (a restore rebuilt their state), by exactly the devices given.
public struct DeviceRowChanges: Sendable {
    /// By partition, each device's latest value and the message rows it changes.
    private var devices: [Int32: [DeviceKey: Change]] = [:]
    /// The partitions whose rows hold exactly their devices here once written.
    private var replaced: Set<Int32> = []

    /// No devices.
    public init() {}

    /// Whether no device or partition is to be written.
    public var isEmpty: Bool { devices.isEmpty }

    /// The partitions noted, with or without devices.
    public var partitions: Dictionary<Int32, [DeviceKey: Change]>.Keys { devices.keys }

    /// Notes `partition`, with or without devices: its rows' checkpoint moves at the next write.
    public mutating func touch(_ partition: Int32) {
        if devices[partition] == nil { devices[partition] = [:] }
    }

    /// Whether anything is noted of `partition`.
    public func holds(_ partition: Int32) -> Bool { devices[partition] != nil }

    /// Notes `device` (nil: forgotten) as the latest of `key` in `partition`, and `messages` as
    /// message rows to write, besides those noted before.
    public mutating func set(
        _ device: DeviceQueue?, messages: DeviceRowUpdate.Messages, for key: DeviceKey, in partition: Int32
    ) {
        devices[partition, default: [:]][key, default: Change(device: nil, messages: .named([]))].update(
            Change(device: device, messages: messages))
    }

    /// Notes that `partition`'s rows are to hold exactly `held`, whatever was noted of it before.
    public mutating func replace(_ partition: Int32, with held: [DeviceKey: DeviceQueue]) {
        devices[partition] = held.mapValues { Change(device: $0, messages: .all) }
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
                devices[partition, default: [:]].merge(changed) { earlier, later in
                    var merged = earlier
                    merged.update(later)
                    return merged
                }
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
                with: changed.compactMap { key, change in change.device.map { (key.token, $0) } },
                checkpoint: checkpoint)
        } else {
            try rows.write(
                changed.map {
                    DeviceRowUpdate(token: $0.key.token, device: $0.value.device, messages: $0.value.messages)
                },
                checkpoint: checkpoint)
        }
    }

    /// A device's latest value and the message rows to write for it.
    public struct Change: Sendable {
        var device: DeviceQueue?
        var messages: DeviceRowUpdate.Messages

        /// Takes `later`'s device, and the message rows of both.
        mutating func update(_ later: Change) {
            device = later.device
            switch (messages, later.messages) {
            case (.named(let earlier), .named(let named)): messages = .named(earlier.union(named))
            default: messages = .all
            }
        }
    }
}
