import DeviceQueues
import Testing

@testable import BridgeCore

/// What a partition served from a store reads, holds and lets go (``DeviceStates/serve(_:written:)``).
@Suite("The device cache of a partition served from a store")
struct DeviceCacheTests {
    static let month: Int64 = 31 * 24 * 3_600_000

    /// A state of partition 0, served, holding `tokens`' devices, every change written.
    static func served(holding tokens: [String]) -> DeviceStates {
        var states = DeviceStates()
        states.adopt(0)
        states.serve(0)
        for token in tokens { _ = states.ensureDevice(token, in: 0, at: 0) }
        states.written(through: states.seal())
        return states
    }

    @Test("a partition not served reads nothing and lets nothing go")
    func notServed() {
        var states = DeviceStates()
        states.adopt(0)
        _ = states.ensureDevice("a", in: 0, at: 0)
        #expect(states.devicesToRead(["a", "b"], in: 0) == [])
        let evicted1 = states.evict(in: 0, keeping: 0)
        #expect(evicted1 == 0)
        #expect(states.devices(in: 0)?.count == 1)
    }

    @Test("tokens not held are read, each once; one the store lacks is not read again until the batch ends")
    func readsOnce() {
        var states = Self.served(holding: ["a"])
        #expect(states.devicesToRead(["a", "b", "c", "b"], in: 0) == ["b", "c"])
        states.admit(["b": DeviceQueue(firstSeenAt: 5)], read: ["b", "c"], in: 0)
        #expect(states.devices(in: 0)?[DeviceKey(token: "b")] == DeviceQueue(firstSeenAt: 5))
        #expect(states.devicesToRead(["b", "c"], in: 0) == [])
        _ = states.seal()
        #expect(states.devicesToRead(["b", "c"], in: 0) == ["c"])
    }

    @Test("a device read while one is held keeps the one held: it is the newer")
    func heldWins() {
        var states = Self.served(holding: ["a"])
        states.admit(["a": DeviceQueue(firstSeenAt: 99)], read: ["a"], in: 0)
        #expect(states.devices(in: 0)?[DeviceKey(token: "a")] == DeviceQueue(firstSeenAt: 0))
    }

    @Test("a device changed leaves only once its batch is written; the least recently used leave first")
    func evictsWritten() {
        var states = Self.served(holding: ["a", "b", "c"])
        // b used (not changed) in the next batch, c changed in it.
        _ = states.ensureDevice("b", in: 0, at: 1)
        _ = states.handle(RoutedInput(token: "c", input: .presence(.connect), time: 1), in: 0, rules: QueueRules())
        let changed = states.seal()
        let evicted2 = states.evict(in: 0, keeping: 2)
        #expect(evicted2 == 1)
        #expect(states.devices(in: 0)?[DeviceKey(token: "a")] == nil)
        let evicted3 = states.evict(in: 0, keeping: 0)
        #expect(evicted3 == 1)
        #expect(states.devices(in: 0)?.keys.map(\.token) == ["c"])
        states.written(through: changed)
        let evicted4 = states.evict(in: 0, keeping: 0)
        #expect(evicted4 == 1)
        #expect(states.devices(in: 0)?.isEmpty == true)
    }

    @Test(
        "a partition served before its store holds its devices reads none and lets none go until its open batch is written"
    )
    func servedBeforeWritten() {
        var states = DeviceStates()
        states.adopt(0)
        for token in ["a", "b"] { _ = states.ensureDevice(token, in: 0, at: 0) }
        let before = states.seal()
        states.serve(0, written: false)
        // The store may hold a device the restore did not find: it is nowhere.
        #expect(states.devicesToRead(["a", "c"], in: 0) == [])
        let sealed = states.seal()
        states.written(through: before)
        let evictedBefore = states.evict(in: 0, keeping: 0)
        #expect(evictedBefore == 0)
        #expect(states.devicesToRead(["c"], in: 0) == [])
        states.written(through: sealed)
        #expect(states.devicesToRead(["c"], in: 0) == ["c"])
        let evictedAfter = states.evict(in: 0, keeping: 0)
        #expect(evictedAfter == 2)
        #expect(states.devicesToRead(["a", "b"], in: 0) == ["a", "b"])
    }

    @Test("a device forgotten and made again in one batch leaves, once written, as any other")
    func forgottenAndMadeAgain() {
        var states = Self.served(holding: ["a"])
        _ = states.sweepCandidatesToRead(in: 0, inputs: 1)
        _ = states.ensureDevice("a", in: 0, at: 1)
        let forgotten = states.forgetIdle(in: 0, at: Self.month * 2, rules: QueueRules())
        #expect(forgotten.map(\.token) == ["a"])
        _ = states.ensureDevice("a", in: 0, at: Self.month * 2)
        states.written(through: states.seal())
        let evicted = states.evict(in: 0, keeping: 0)
        #expect(evicted == 1)
        #expect(states.devices(in: 0)?.isEmpty == true)
    }

    @Test("a device used again is as recent as its last use")
    func usedAgain() {
        var states = Self.served(holding: ["a", "b"])
        _ = states.ensureDevice("a", in: 0, at: 1)
        states.written(through: states.seal())
        let evicted = states.evict(in: 0, keeping: 1)
        #expect(evicted == 1)
        #expect(states.devices(in: 0)?.keys.map(\.token) == ["a"])
    }

    @Test("a device forgotten is known to be nowhere until its removal is written")
    func forgottenUntilWritten() {
        var states = Self.served(holding: ["a"])
        let forgotten = states.forgetIdle(in: 0, at: Self.month, rules: QueueRules())
        #expect(forgotten.map(\.token) == ["a"])
        let batch = states.seal()
        #expect(states.devicesToRead(["a"], in: 0) == [])
        // The store's older device, read anyway, is not taken.
        states.admit(["a": DeviceQueue(firstSeenAt: 0)], read: ["a"], in: 0)
        #expect(states.devices(in: 0)?.isEmpty == true)
        states.written(through: batch)
        #expect(states.devicesToRead(["a"], in: 0) == ["a"])
    }

    @Test("devices the open batch read or changed stay: it is not written, whatever number is given")
    func openBatchStays() {
        var states = Self.served(holding: [])
        states.admit(["a": DeviceQueue(firstSeenAt: 1)], read: ["a"], in: 0)
        _ = states.ensureDevice("b", in: 0, at: 1)
        states.written(through: .max)
        let evicted = states.evict(in: 0, keeping: 0)
        #expect(evicted == 0)
        // Sealed, b's change is still unwritten: a alone leaves.
        let sealed = states.seal()
        let evictedSealed = states.evict(in: 0, keeping: 0)
        #expect(evictedSealed == 1)
        #expect(states.devices(in: 0)?.keys.map(\.token) == ["b"])
        states.written(through: sealed)
        let evictedWritten = states.evict(in: 0, keeping: 0)
        #expect(evictedWritten == 1)
    }

    @Test("the sweep asks for the store's idle devices once, and forgets each only once it is read")
    func storeCandidatesWaitForTheirRead() {
        var states = Self.served(holding: ["a"])
        let first = states.forgetIdle(in: 0, at: Self.month, rules: QueueRules())
        #expect(first.map(\.token) == ["a"])
        let scans = states.takeStoreScans()
        #expect(scans == [0: Self.month])
        let again = states.takeStoreScans()
        #expect(again.isEmpty)
        // a is forgotten and not yet removed from the store: it is not read, and not forgotten again.
        states.addIdle(["x", "a"], in: 0)
        #expect(states.sweepCandidatesToRead(in: 0, inputs: 1) == ["x"])
        let beforeRead = states.forgetIdle(in: 0, at: Self.month, rules: QueueRules())
        #expect(beforeRead.isEmpty)
        #expect(states.sweepCandidatesToRead(in: 0, inputs: 1) == ["x"])
        states.admit(["x": DeviceQueue(firstSeenAt: 0)], read: ["x"], in: 0)
        let afterRead = states.forgetIdle(in: 0, at: Self.month, rules: QueueRules())
        #expect(afterRead.map(\.token) == ["x"])
    }

    @Test(
        "a served partition set aside and given back is served again, with nothing unwritten and the devices not held counted"
    )
    func suspended() {
        // b, the least recently used, leaves; a changes.
        var states = Self.served(holding: ["b", "a"])
        let evicted = states.evict(in: 0, keeping: 1)
        #expect(evicted == 1)
        _ = states.handle(RoutedInput(token: "a", input: .presence(.connect), time: 1), in: 0, rules: QueueRules())
        _ = states.seal()
        states.suspend(0, coveredTo: 10)
        states.adopt(0)
        let resumed = states.resume(0, coveredTo: 10, servedStoreCoveredTo: 10)
        #expect(resumed)
        #expect(states.isServed(0) && states.deviceCount == 2 && states.devicesInMemory == 1)
        let evictedAfter = states.evict(in: 0, keeping: 0)
        #expect(evictedAfter == 1)
    }

    @Test("a served partition set aside is not resumed when its store does not cover its offset")
    func suspendedStoreBehind() {
        for storeOffset: Int64? in [nil, 9] {
            var states = Self.served(holding: ["a"])
            states.suspend(0, coveredTo: 10)
            states.adopt(0)
            let resumed = states.resume(0, coveredTo: 10, servedStoreCoveredTo: storeOffset)
            #expect(!resumed && !states.isServed(0) && states.suspendedPartitions.isEmpty)
        }
    }

    /// A message `id` waiting, as a restore replays it.
    static func enqueued(_ id: String) -> StateChange {
        .enqueued(QueuedMessage(id: id, collapseKey: nil, sentAt: 0, expiresAt: nil, apns: []))
    }

    @Test(
        "served from a store it holds none of, a partition counts the store's devices, reads what a restore names, counts the changes and holds them until written"
    )
    func restoredOntoTheStore() {
        var states = DeviceStates()
        states.adopt(0)
        states.serve(0, storeHolding: DeviceCounts(devices: 5, waitingMessages: 7), memberCounts: ["news": 3])
        #expect(states.devicesInMemory == 0 && states.deviceCount == 5 && states.waitingMessageCount == 7)
        #expect(states.topics.membershipCount == 3 && states.topics.membershipsInMemory == 0)
        #expect(states.devicesToRead(["a", "b", "c"], in: 0) == ["a", "b", "c"])
        var a: DeviceQueue? = nil
        for change in [StateChange.device(DeviceQueue(firstSeenAt: 1).status), Self.enqueued("1"), Self.enqueued("2")] {
            DeviceQueue.restore(change, onto: &a)
        }
        states.admit(["a": a ?? .blank, "b": DeviceQueue(firstSeenAt: 2)], read: ["a", "b", "c"], in: 0)
        // a forgotten with its two messages; c made with one; b gets two.
        states.restore(.forgotten, token: "a", in: 0)
        states.restore(.device(DeviceQueue(firstSeenAt: 3).status), token: "c", in: 0)
        states.restore(Self.enqueued("3"), token: "c", in: 0)
        states.restore(Self.enqueued("4"), token: "b", in: 0)
        states.restore(Self.enqueued("5"), token: "b", in: 0)
        #expect(states.counts(in: 0) == DeviceCounts(devices: 5, waitingMessages: 8))
        let unwritten = states.unwrittenDevices(in: 0)
        #expect(Set(unwritten.keys.map(\.token)) == ["a", "b", "c"])
        #expect(unwritten[DeviceKey(token: "a")] == .some(nil) && unwritten[DeviceKey(token: "c")]??.waiting.count == 1)
        // Nothing leaves, and a forgotten device is nowhere, until the changes are written.
        _ = states.seal()
        let kept = states.evict(in: 0, keeping: 0)
        #expect(kept == 0 && states.devicesToRead(["a"], in: 0) == [])
        states.written(through: states.seal())
        let evicted = states.evict(in: 0, keeping: 0)
        #expect(evicted == 2 && states.devicesInMemory == 0 && states.unwrittenDevices(in: 0).isEmpty)
        #expect(states.devicesToRead(["a", "b", "c"], in: 0) == ["a", "b", "c"])
    }
}
