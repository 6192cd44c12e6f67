import NIOCore

/// What a state partition served from a store knows of the devices it does not hold: the
/// devices held are a cache of the store's (``DeviceStates/serve(_:written:)``).
///
/// A device not held is in the store, or nowhere: the store answers. Two kinds of device are
/// known to be nowhere without asking: one the store was asked for and did not hold, until the
/// batch that asked ends; and one forgotten, until the store holds its removal. A device leaves
/// the cache only once the store holds its last change: until then the store holds an older
/// one. Batches are numbered by the caller's seals (``DeviceStates/seal()``).
struct DeviceCache: Sendable, Equatable {
    /// The event time of an idle sweep's scan of the devices held, whose store's idle devices are
    /// still to be added to the sweep.
    var storeScanDue: Int64?
    /// The devices the partition holds, in memory and in the store, and the messages waiting in them.
    private(set) var counts = DeviceCounts(devices: 0, waitingMessages: 0)
    /// Devices changed in a batch whose changes the store does not hold yet, by that batch: held,
    /// or forgotten.
    private var unwritten: [DeviceKey: UInt64] = [:]
    /// The batch whose write makes the store hold exactly the devices held when the partition
    /// began to be served, replacing what the store held: until it is written, every device is
    /// held (one not held is nowhere, whatever the store says) and none may leave.
    private var replacedIn: UInt64?
    /// Devices the store was asked for in the open batch and did not hold.
    private var notInStore: Set<DeviceKey> = []
    /// Devices the open batch used: it may have read them for records still to come.
    private var usedInOpenBatch: Set<DeviceKey> = []
    /// Each device held, by the number of its last use.
    private var lastUse: [DeviceKey: UInt64] = [:]
    private var uses: UInt64 = 0
    /// Uses in the order they came, least recent first: an entry is stale once its device is used
    /// again, or leaves. Eviction takes from the front, so that it costs what it lets go, not
    /// what is held.
    private var order = CircularBuffer<Use>()

    private struct Use: Equatable {
        let key: DeviceKey
        let number: UInt64
    }

    /// A cache of a store that holds `counts` and every change, with no device held.
    init(counts: DeviceCounts) { self.counts = counts }

    /// A cache of a store, with no device held yet: ``hold(_:waiting:)`` counts those held.
    init() {}

    /// Whether the store must be asked for a device not held: not when it is known to be nowhere.
    func mustRead(_ key: DeviceKey) -> Bool {
        replacedIn == nil && unwritten[key] == nil && !notInStore.contains(key)
    }

    /// Notes that the store holds the devices held once `batch` is written, and nothing else.
    mutating func replaced(in batch: UInt64) { replacedIn = batch }

    /// Notes that the store does not hold `key`.
    mutating func notInStore(_ key: DeviceKey) { notInStore.insert(key) }

    /// Notes a use of `key` in `batch`, the open one: a change when `changed`, a device made
    /// when `made`, and `waiting` more messages waiting (fewer when negative).
    mutating func use(_ key: DeviceKey, in batch: UInt64, changed: Bool, made: Bool = false, waiting: Int = 0) {
        if changed { unwritten[key] = batch }
        if made { counts.devices += 1 }
        counts.waitingMessages += waiting
        // Uses are ordered by batch: a second in the same batch changes nothing eviction sees.
        if usedInOpenBatch.insert(key).inserted { remember(key) }
    }

    /// Notes `key` held, and counted with `waiting` messages, as its most recent use.
    mutating func hold(_ key: DeviceKey, waiting: Int) {
        counts.devices += 1
        counts.waitingMessages += waiting
        remember(key)
    }

    /// Notes `key` as the most recently used.
    private mutating func remember(_ key: DeviceKey) {
        uses &+= 1
        lastUse[key] = uses
        order.append(Use(key: key, number: uses))
        // Stale entries go when they outnumber the devices held.
        if order.count > 2 * lastUse.count + 1_024 {
            let lastUse = lastUse
            order = CircularBuffer(order.filter { lastUse[$0.key] == $0.number })
        }
    }

    /// Notes that `key`, with `waiting` messages, was forgotten in `batch`: nowhere until the
    /// store holds its removal.
    mutating func forget(_ key: DeviceKey, in batch: UInt64, waiting: Int) {
        lastUse[key] = nil
        // Made again in this batch, it is remembered anew.
        usedInOpenBatch.remove(key)
        unwritten[key] = batch
        counts.devices -= 1
        counts.waitingMessages -= waiting
    }

    /// Notes a change replayed onto `key` in `batch`, the open one, by a restore: the device had
    /// `before` messages waiting (nil: there was none), and has `after` (nil: it is gone).
    mutating func replayed(_ key: DeviceKey, in batch: UInt64, before: Int?, after: Int?) {
        switch (before, after) {
        case (nil, nil): unwritten[key] = batch
        case (nil, let after?): use(key, in: batch, changed: true, made: true, waiting: after)
        case (let before?, nil): forget(key, in: batch, waiting: before)
        case (let before?, let after?): use(key, in: batch, changed: true, waiting: after - before)
        }
    }

    /// The devices changed in batches the store does not hold yet.
    var unwrittenDevices: Dictionary<DeviceKey, UInt64>.Keys { unwritten.keys }

    /// Ends the open batch: what the store did not hold may be there by the next.
    mutating func seal() {
        notInStore.removeAll(keepingCapacity: true)
        usedInOpenBatch.removeAll(keepingCapacity: true)
    }

    /// Goes on after the partition was set aside: the store holds every change, and a new batch
    /// is open.
    mutating func resume() {
        unwritten.removeAll()
        replacedIn = nil
        seal()
    }

    /// Notes that the store holds every change of the batches up to `batch`.
    mutating func written(through batch: UInt64) {
        unwritten = unwritten.filter { $0.value > batch }
        if let replacedIn, replacedIn <= batch { self.replacedIn = nil }
    }

    /// Up to `count` devices to let go, each noted gone: written ones that the open batch has not
    /// used, the least recently used first.
    mutating func evictions(_ count: Int) -> [DeviceKey] {
        guard replacedIn == nil else { return [] }
        var leaving: [DeviceKey] = []
        var staying: [Use] = []
        while leaving.count < count, let use = order.popFirst() {
            guard lastUse[use.key] == use.number else { continue }
            // The open batch's uses are the last: none after this one may leave.
            guard !usedInOpenBatch.contains(use.key) else {
                staying.append(use)
                break
            }
            guard unwritten[use.key] == nil else {
                staying.append(use)
                continue
            }
            lastUse[use.key] = nil
            leaving.append(use.key)
        }
        for use in staying.reversed() { order.prepend(use) }
        return leaving
    }
}
