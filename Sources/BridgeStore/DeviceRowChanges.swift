import BridgeCore
import DeviceQueues
import DeviceStore

/// Devices to write to their partitions' rows (``DeviceRows``), each as it was when the batch
/// that last changed it was sealed, nil once forgotten, with the ids of the messages that joined
/// or left its queue since its rows were written; the members that joined or left the
/// partitions' topics; and the partitions whose rows are replaced whole (a restore rebuilt their
/// state), by exactly the devices and members given.
///
/// Each batch's devices are kept as a layer of their own and merged, the latest value of a device
/// winning, only when written: holding a batch costs the loop an append, and the merge runs on
/// the thread that writes.
public struct DeviceRowChanges: Sendable {
    /// By partition, the devices of each batch in commit order.
    private var layers: [Int32: [[DeviceKey: Change]]] = [:]
    /// The partitions whose rows hold exactly their devices here once written.
    private var replaced: Set<Int32> = []
    /// By partition, its devices and waiting messages after its last batch here, when known.
    private var counts: [Int32: DeviceCounts] = [:]
    /// By partition, the members that joined or left its topics, in order (after its
    /// replacement's, when it is replaced).
    private var members: [Int32: [MemberRowChange]] = [:]
    /// By partition, the member count of each topic those joins and leaves changed, after them.
    private var memberCounts: [Int32: [String: Int]] = [:]
    /// By partition replaced whole, the members of each of its topics: the state's own, shared
    /// until a topic changes, which then copies that topic's members once.
    private var replacedMembers: [Int32: [String: TopicMembers]] = [:]

    /// No devices.
    public init() {}

    /// Whether no device or partition is to be written.
    public var isEmpty: Bool { layers.isEmpty }

    /// The partitions noted, with or without devices.
    public var partitions: Dictionary<Int32, [[DeviceKey: Change]]>.Keys { layers.keys }

    /// Notes `partition`, with or without devices: its rows' checkpoint moves at the next write,
    /// and its counts become `counts` (nil: unknown, removed from the rows).
    public mutating func touch(_ partition: Int32, counts: DeviceCounts?) {
        if layers[partition] == nil { layers[partition] = [] }
        self.counts[partition] = counts
    }

    /// Whether anything is noted of `partition`.
    public func holds(_ partition: Int32) -> Bool { layers[partition] != nil }

    /// Notes `devices` of one batch over what was noted of `partition` before.
    public mutating func add(_ devices: [DeviceKey: Change], to partition: Int32) {
        layers[partition, default: []].append(devices)
    }

    /// Notes the members that joined or left `partition`'s topics in one batch, in order, after
    /// those noted before, and the member count of each topic they changed after them.
    public mutating func add(_ changes: [MemberRowChange], counts: [String: Int], to partition: Int32) {
        if layers[partition] == nil { layers[partition] = [] }
        members[partition, default: []].append(contentsOf: changes)
        memberCounts[partition, default: [:]].merge(counts) { $1 }
    }

    /// Notes that `partition`'s rows are to hold exactly `held`, and the members of its topics
    /// exactly `members`, whatever was noted of it before (the rows count the devices as they
    /// write them).
    public mutating func replace(
        _ partition: Int32, with held: [DeviceKey: DeviceQueue], members: [String: TopicMembers]
    ) {
        layers[partition] = [held.mapValues { Change(device: $0, messages: .all) }]
        replacedMembers[partition] = members
        self.members[partition] = []
        memberCounts[partition] = [:]
        replaced.insert(partition)
        counts[partition] = nil
    }

    /// Adds `later`'s devices and members over these: the latest value of each device wins, as
    /// do its counts, members' joins and leaves follow these, and a partition `later` replaces
    /// drops what was noted of it here.
    public mutating func append(contentsOf later: DeviceRowChanges) {
        for (partition, added) in later.layers {
            counts[partition] = later.counts[partition]
            if later.replaced.contains(partition) {
                layers[partition] = added
                members[partition] = later.members[partition]
                memberCounts[partition] = later.memberCounts[partition]
                replacedMembers[partition] = later.replacedMembers[partition]
                replaced.insert(partition)
            } else {
                layers[partition, default: []].append(contentsOf: added)
                members[partition, default: []].append(contentsOf: later.members[partition] ?? [])
                memberCounts[partition, default: [:]].merge(later.memberCounts[partition] ?? [:]) { $1 }
            }
        }
    }

    /// Drops the devices and members of the partitions `isDropped` names.
    public mutating func removeAll(ofPartitions isDropped: (Int32) -> Bool) {
        layers = layers.filter { !isDropped($0.key) }
        replaced = replaced.filter { !isDropped($0) }
        counts = counts.filter { !isDropped($0.key) }
        members = members.filter { !isDropped($0.key) }
        memberCounts = memberCounts.filter { !isDropped($0.key) }
        replacedMembers = replacedMembers.filter { !isDropped($0.key) }
    }

    /// Writes the devices and members of `partition` to `rows` with `checkpoint`: all or nothing,
    /// in one batch; or, replaced whole, in ``DeviceRows/replaceAll(with:members:then:laterCounts:checkpoint:)``'s
    /// three steps, which leave the rows without a checkpoint when cut short.
    func write(_ partition: Int32, to rows: DeviceRows, checkpoint: Int64) throws(DeviceStoreError) {
        var changed: [DeviceKey: Change] = [:]
        for layer in layers[partition] ?? [] {
            if changed.isEmpty {
                changed = layer
            } else {
                changed.merge(layer) { earlier, later in earlier.updated(by: later) }
            }
        }
        let members = members[partition] ?? []
        if replaced.contains(partition) {
            // The replacement's members, then the joins and leaves of the batches after it.
            try rows.replaceAll(
                with: changed.compactMap { key, change in change.device.map { (key.token, $0) } },
                members: replacedMembers[partition] ?? [:], then: members,
                laterCounts: memberCounts[partition] ?? [:], checkpoint: checkpoint)
        } else {
            try rows.write(
                changed.map {
                    DeviceRowUpdate(token: $0.key.token, device: $0.value.device, messages: $0.value.messages)
                },
                members: members, memberCounts: memberCounts[partition] ?? [:], checkpoint: checkpoint,
                counts: counts[partition])
        }
    }

    /// A device's value when its batch was sealed, and the message rows to write for it.
    public struct Change: Sendable {
        var device: DeviceQueue?
        var messages: DeviceRowUpdate.Messages

        /// `device` (nil: forgotten), with the message rows `messages`.
        public init(device: DeviceQueue?, messages: DeviceRowUpdate.Messages) {
            self.device = device
            self.messages = messages
        }

        /// `later`'s device, with the message rows of both.
        func updated(by later: Change) -> Change {
            switch (messages, later.messages) {
            case (.named(let earlier), .named(let named)):
                Change(device: later.device, messages: .named(earlier.union(named)))
            default: Change(device: later.device, messages: .all)
            }
        }
    }
}
