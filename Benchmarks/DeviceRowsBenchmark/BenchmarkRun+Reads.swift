import DeviceQueues
@_spi(Benchmarks) import DeviceStore
import Foundation

extension BenchmarkRun {
    /// Point reads of devices held and not held, against raw gets of the same keys.
    func reads() throws {
        let suffixes = encoded.dropFirst().map(\.key)
        for (label, known) in [("read a device held", true), ("read a device not held", false)] {
            let probed = (0..<probes).map { known ? tokens[$0] : Self.token(devices + $0) }
            var found = 0
            let rawRead = Self.rate(probes) {
                for (index, token) in probed.enumerated()
                where raw[index % Self.stores].read(token, messageSuffixes: suffixes) {
                    found += 1
                }
            }
            let rowsRead = try Self.rate(probes) {
                for (index, token) in probed.enumerated() where try rows[index % Self.stores].device(token) != nil {
                    found += 1
                }
            }
            precondition(found == (known ? 2 * probes : 0), "\(label): \(found) found")
            Self.report(label, rowsRead, rawRead)
            try settle()
        }
    }

    /// Devices read 500 at a time from one store, as the misses of a batch are read before it is
    /// processed, against RocksDB's batched reads of the same heads and then of their message rows.
    func readsTogether() throws {
        let batchSize = 500
        for (label, known) in [("read 500 devices held together", true), ("read 500 devices not held together", false)]
        {
            var batches: [(store: Int, tokens: [String])] = []
            for store in 0..<Self.stores {
                let share = stride(from: store, to: probes, by: Self.stores).map {
                    known ? tokens[$0] : Self.token(devices + $0)
                }
                for start in stride(from: 0, to: share.count, by: batchSize) {
                    batches.append((store, Array(share[start..<min(start + batchSize, share.count)])))
                }
            }
            let suffixes = encoded.dropFirst().map(\.key)
            var found = 0
            let rawRead = Self.rate(probes) {
                for (store, tokens) in batches { found += raw[store].readTogether(tokens, messageSuffixes: suffixes) }
            }
            let rowsRead = try Self.rate(probes) {
                for (store, tokens) in batches { found += try rows[store].devices(tokens).count }
            }
            precondition(found == (known ? 2 * probes : 0), "\(label): \(found) found")
            Self.report(label, rowsRead, rawRead)
            try settle()
        }
    }

    /// Every device loaded into a dictionary by token, one store after another and on two
    /// threads, against raw scans; each device sent to holds `extraRows` more rows.
    func loads(extraRows: Int) throws {
        let rawRows = devices * encoded.count + probes * extraRows
        let rawScan = Self.rate(devices) { precondition(raw.reduce(0) { $0 + $1.scanCount() } == rawRows) }
        let loadOne = try Self.rate(devices) {
            let loaded = try rows.reduce(0) { $0 + (try Self.load($1)) }
            precondition(loaded == devices)
        }
        Self.report("load every device, one store after another", loadOne, rawScan)
        // The idle sweep's scan of a partition served from its rows: every head read and judged
        // (every device here has messages waiting, so none is idle).
        let idleScan = try Self.rate(devices) {
            let idle = try rows.reduce(0) { $0 + (try $1.idleTokens(at: .max, rules: QueueRules()).count) }
            precondition(idle == 0, "\(idle) idle")
        }
        Self.report("find the idle devices, one store after another", idleScan, rawScan)
        // Two threads, each taking two stores one after the other; each writes its own element.
        nonisolated(unsafe) let loaded = UnsafeMutableBufferPointer<Int>.allocate(capacity: 2)
        defer { loaded.deallocate() }
        let rawScanTwo = Self.rate(devices) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                loaded[thread] = raw[thread].scanCount() + raw[thread + 2].scanCount()
            }
            precondition(loaded[0] + loaded[1] == rawRows)
        }
        let loadTwo = Self.rate(devices) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                loaded[thread] = (try? Self.load(rows[thread]) + Self.load(rows[thread + 2])) ?? -1
            }
            precondition(loaded[0] + loaded[1] == devices)
        }
        Self.report("load every device, two threads", loadTwo, rawScanTwo)
    }
}
