import BridgeCore
import DeviceQueues
@_spi(Benchmarks) import DeviceStore
import Foundation

extension BenchmarkRun {
    /// A changelog applied into empty rows, a part at a time and a table file a part; every
    /// device loaded in one table file a store; the changelog replayed in memory and then loaded.
    func restores() throws {
        // A restore with no local state: the changelog (a status and a message a device, each
        // device's records together, the devices in random order) applied into empty rows in
        // batches of 100,000 records, against raw puts of the rows that result; per record.
        let changes = tokens.flatMap { token -> [(token: String, change: StateChange)] in
            [(token, .device(device.status))] + device.waiting.map { (token, .enqueued($0)) }
                + device.unacknowledged.all.map { (token, .awaitingAcknowledgement(messageID: $0)) }
        }
        let applied = try (0..<Self.stores).map {
            try DeviceRows(at: "\(directory)/applied-\($0)", cacheBytes: 64 << 20)
        }
        let rawApplied = try (0..<Self.stores).map { try RawStore(path: "\(directory)/raw-applied-\($0)") }
        let rawApply = Self.rate(changes.count) {
            for (index, token) in tokens.enumerated() { rawApplied[index % Self.stores].put(token, encoded) }
            for store in rawApplied { store.flushBatch() }
        }
        // Each store's records, each device's together.
        var perStore = [[(token: String, change: StateChange)]](repeating: [], count: Self.stores)
        for (index, change) in changes.enumerated() {
            perStore[index / (changes.count / devices) % Self.stores].append(change)
        }
        for store in rawApplied { store.settle() }
        let rowsApply = try Self.rate(changes.count) { try Self.applyInParts(perStore, to: applied, inBulk: false) }
        let first = try applied[0].device(tokens[0])
        precondition(first == device)
        Self.report("apply a changelog into empty rows, per record", rowsApply, rawApply)

        // The same parts, each applied as one table file instead of a batch: the rows read as
        // before, the writes past the memtable.
        for store in applied { try store.settle() }
        let appliedInBulk = try (0..<Self.stores).map {
            try DeviceRows(at: "\(directory)/applied-in-bulk-\($0)", cacheBytes: 64 << 20)
        }
        let rowsApplyInBulk = try Self.rate(changes.count) {
            try Self.applyInParts(perStore, to: appliedInBulk, inBulk: true)
        }
        let firstInBulk = try appliedInBulk[0].device(tokens[0])
        precondition(firstInBulk == device)
        Self.report("apply a changelog into empty rows, a table file a part, per record", rowsApplyInBulk, rawApply)

        // Every device loaded into empty rows in one table file a store, against the same
        // encoded rows, sorted and ingested through the C API.
        for store in rawApplied { store.settle() }
        for store in appliedInBulk { try store.settle() }
        let rawLoaded = try (0..<Self.stores).map { try RawStore(path: "\(directory)/raw-loaded-\($0)") }
        let rawLoad = try Self.rate(devices) {
            for store in 0..<Self.stores {
                try rawLoaded[store].ingest(
                    stride(from: store, to: devices, by: Self.stores).map { tokens[$0] }, encoded,
                    file: "\(directory)/raw-load-\(store).sst")
            }
        }
        for store in rawLoaded { store.settle() }
        let bulk = try (0..<Self.stores).map { try DeviceRows(at: "\(directory)/loaded-\($0)", cacheBytes: 64 << 20) }
        let rowsLoad = try Self.rate(devices) {
            for store in 0..<Self.stores {
                try bulk[store].load(
                    stride(from: store, to: devices, by: Self.stores).map { (tokens[$0], Optional(device)) },
                    checkpoint: Int64(devices))
            }
        }
        let firstLoaded = try bulk[0].device(tokens[0])
        precondition(firstLoaded == device)
        Self.report("load every device into empty rows, a table file a store", rowsLoad, rawLoad)

        // The changelog of the apply phase replayed in memory, as a restore does, and then loaded
        // into empty rows: what docs/SCALING.md's bulk loads would make of a restore with no
        // local state; per record, against the apply phase's baseline.
        for store in bulk { try store.settle() }
        let replayed = try (0..<Self.stores).map {
            try DeviceRows(at: "\(directory)/replayed-\($0)", cacheBytes: 64 << 20)
        }
        let rowsReplay = try Self.rate(changes.count) {
            for (store, changes) in perStore.enumerated() { try Self.replayAndLoad(changes, into: replayed[store]) }
        }
        let firstReplayed = try replayed[0].device(tokens[0])
        precondition(firstReplayed == device)
        Self.report("replay a changelog in memory, then load it into empty rows, per record", rowsReplay, rawApply)

        // The same, the four stores on two threads, two each, as a restore of four partitions
        // could run on two cores (the changelog's reading aside).
        for store in replayed { try store.settle() }
        let replayedTwo = try (0..<Self.stores).map {
            try DeviceRows(at: "\(directory)/replayed-two-\($0)", cacheBytes: 64 << 20)
        }
        let parts = perStore
        let rowsReplayTwo = Self.rate(changes.count) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for store in [thread, thread + 2] {
                    do {
                        try Self.replayAndLoad(parts[store], into: replayedTwo[store])
                    } catch {
                        preconditionFailure("\(error)")
                    }
                }
            }
        }
        let firstReplayedTwo = try replayedTwo[0].device(tokens[0])
        precondition(firstReplayedTwo == device)
        Self.report("the same, two threads", rowsReplayTwo, rawApply)
    }

    /// Each store's changes applied to its rows in parts of a quarter of a restore's poll
    /// (100,000 records), each part in a batch or, `inBulk`, as a table file.
    static func applyInParts(
        _ perStore: [[(token: String, change: StateChange)]], to rows: [DeviceRows], inBulk: Bool
    ) throws {
        for (store, changes) in perStore.enumerated() {
            for start in stride(from: 0, to: changes.count, by: 100_000 / Self.stores) {
                let end = min(start + 100_000 / Self.stores, changes.count)
                try rows[store].apply(Array(changes[start..<end]), checkpoint: Int64(end), inBulk: inBulk)
            }
        }
    }

    /// `changes` replayed into a dictionary, as a restore replays them, and loaded into `rows`.
    static func replayAndLoad(_ changes: [(token: String, change: StateChange)], into rows: DeviceRows) throws {
        var devices: [String: DeviceQueue?] = [:]
        for (token, change) in changes { DeviceQueue.restore(change, onto: &devices[token, default: nil]) }
        try rows.load(
            devices.compactMap { token, device in device.map { (token, Optional($0)) } },
            checkpoint: Int64(changes.count))
    }
}
