import BridgeCore
import CRocksDB
import DeviceQueues
@_spi(Benchmarks) import DeviceStore
import FCMTranslation
import Foundation

/// Device rows written, read and loaded per second through ``DeviceRows`` (each device's rows
/// encoded or decoded as ``DeviceRow``'s head and message rows), against RocksDB's C API given
/// the same keys and bytes, in the same run.
///
/// `devices` offline devices with `messages` waiting messages each (default one; a token of FCM's
/// length, about 300 payload bytes a message) and `acknowledgements` ids awaiting `ack` each
/// (default none), spread over four
/// stores as over four state partitions, in random order. The baseline's databases have the same
/// options as ``DeviceRows``' (lz4, bloom filters, a 64 MiB block cache), so the ratios are what the
/// wrapper and ``DeviceRow`` cost; every database is flushed and its compactions ended before each
/// phase.
///
/// - writes: batches of 10,000 rows with a checkpoint, against raw puts of the encoded rows;
/// - point reads of devices held and not held, against raw gets of the same keys;
/// - a send to a device held (read, queue, write its head and the rows of the messages that
///   joined or left its queue), against a raw get, scan and puts; and its write alone;
/// - a load of every device into a dictionary by token (a restart that rebuilds the state):
///   one store after the other, and the four stores on two threads; against a raw scan of the
///   same stores on as many threads;
/// - a changelog applied into empty rows (a restore with no local state), against raw puts of
///   the rows that result, each part of it written in a batch, and then each as a table file;
/// - every device loaded into empty rows in one table file a store (``DeviceRows/load(_:checkpoint:)``),
///   against the same rows sorted and ingested through the C API;
/// - the changelog replayed in memory and then loaded into empty rows, one store after another
///   and on two threads, against the apply's baseline.
@main
enum DeviceRowsBenchmark {
    static let stores = 4
    static let batchSize = 10_000

    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst().map { Int($0) }
        let devices = max((arguments.first ?? nil) ?? 1_000_000, stores)
        let acknowledgements = max((arguments.dropFirst().first ?? nil) ?? 0, 0)
        let messages = min(max((arguments.dropFirst(2).first ?? nil) ?? 1, 1), 100)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("device-rows-benchmark").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let device = sampleDevice(acknowledgements: acknowledgements, messages: messages)
        var tokens = (0..<devices).map(token)
        var generator = SystemRandomNumberGenerator()
        tokens.shuffle(using: &generator)
        print(
            "\(devices) devices with \(messages) waiting messages and \(acknowledgements) ids awaiting ack each, "
                + "a head of \(rowsOf(device)[0].value.count) bytes and \(rowsOf(device)[1].value.count) bytes a message, "
                + "in \(stores) stores"
        )
        print()
        print("| operation | fcm-bridge (DeviceRows) per s | RocksDB's C API per s | ratio |")
        print("|---|---|---|---|")

        let raw = try (0..<stores).map { try RawStore(path: "\(directory)/raw-\($0)") }
        let rows = try (0..<stores).map { try DeviceRows(at: "\(directory)/rows-\($0)", cacheBytes: 64 << 20) }
        func settle() throws {
            for store in raw { store.settle() }
            for store in rows { try store.settle() }
        }
        let encoded = rowsOf(device)
        let rawWrite = rate(devices) {
            for (index, token) in tokens.enumerated() { raw[index % stores].put(token, encoded) }
            for store in raw { store.flushBatch() }
        }
        for store in raw { store.settle() }
        let rowsWrite = try rate(devices) {
            for store in 0..<stores {
                var batch: [(token: String, device: DeviceQueue?)] = []
                for index in stride(from: store, to: devices, by: stores) {
                    batch.append((tokens[index], device))
                    if batch.count == batchSize {
                        try rows[store].write(batch, checkpoint: Int64(index))
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                try rows[store].write(batch, checkpoint: Int64(devices))
            }
        }
        report("write, random order", rowsWrite, rawWrite)
        try settle()

        let probes = min(devices, 200_000)
        for (label, known) in [("read a device held", true), ("read a device not held", false)] {
            let probed = (0..<probes).map { known ? tokens[$0] : token(devices + $0) }
            var found = 0
            let rawRead = rate(probes) {
                for (index, token) in probed.enumerated() where raw[index % stores].read(token, messages: known) {
                    found += 1
                }
            }
            let rowsRead = try rate(probes) {
                for (index, token) in probed.enumerated() where try rows[index % stores].device(token) != nil {
                    found += 1
                }
            }
            precondition(found == (known ? 2 * probes : 0), "\(label): \(found) found")
            report(label, rowsRead, rawRead)
            try settle()
        }

        // A send to an offline device held, as a worker serving from the rows makes it: the rows
        // read, the message queued, the head and the rows of the messages that joined or left the
        // queue written in a batch of 10,000 with a checkpoint.
        let sent = (0..<probes).map { tokens[$0] }
        var grown = device
        let sendOutput = grown.send(message(messages + 1), at: 1, rules: QueueRules())
        let grownRows = rowsOf(grown)
        let changedIDs = messageIDs(sendOutput.changes)
        let changedRows =
            [(grownRows[0].key, Optional(grownRows[0].value))]
            + changedIDs.map { id in
                let suffix = [UInt8(ascii: "m")] + Array(id.utf8)
                return (suffix, grownRows.first { $0.key == suffix }?.value)
            }
        let rawSend = rate(probes) {
            for (index, token) in sent.enumerated() {
                precondition(raw[index % stores].read(token, messages: true), "\(token) not held")
                raw[index % stores].write(token, changedRows)
            }
            for store in raw { store.flushBatch() }
        }
        let rowsSend = try rate(probes) {
            var batches = [[DeviceRowUpdate]](repeating: [], count: stores)
            for (index, token) in sent.enumerated() {
                guard var held = try rows[index % stores].device(token) else {
                    preconditionFailure("\(token) not held")
                }
                let output = held.send(message(messages + 1), at: 1, rules: QueueRules())
                batches[index % stores].append(
                    DeviceRowUpdate(token: token, device: held, messages: .named(messageIDs(output.changes))))
                if batches[index % stores].count == batchSize {
                    try rows[index % stores].write(batches[index % stores], checkpoint: Int64(index))
                    batches[index % stores].removeAll(keepingCapacity: true)
                }
            }
            for (store, batch) in batches.enumerated() { try rows[store].write(batch, checkpoint: Int64(probes)) }
        }
        report("a send to a device held: read, queue, write back", rowsSend, rawSend)
        try settle()

        // The write of a send alone, the device in memory, as the worker writes its rows after a
        // commit: the head and the rows of the messages that joined or left the queue.
        var grownAgain = grown
        let againIDs = messageIDs(grownAgain.send(message(messages + 2), at: 2, rules: QueueRules()).changes)
        let grownAgainRows = rowsOf(grownAgain)
        let againRows =
            [(grownAgainRows[0].key, Optional(grownAgainRows[0].value))]
            + againIDs.map { id in
                let suffix = [UInt8(ascii: "m")] + Array(id.utf8)
                return (suffix, grownAgainRows.first { $0.key == suffix }?.value)
            }
        let rawSendWrite = rate(probes) {
            for (index, token) in sent.enumerated() { raw[index % stores].write(token, againRows) }
            for store in raw { store.flushBatch() }
        }
        let rowsSendWrite = try rate(probes) {
            for store in 0..<stores {
                var batch: [DeviceRowUpdate] = []
                for index in stride(from: store, to: probes, by: stores) {
                    batch.append(DeviceRowUpdate(token: sent[index], device: grownAgain, messages: .named(againIDs)))
                    if batch.count == batchSize {
                        try rows[store].write(batch, checkpoint: Int64(index))
                        batch.removeAll(keepingCapacity: true)
                    }
                }
                try rows[store].write(batch, checkpoint: Int64(probes))
            }
        }
        report("a send's write alone, the device in memory", rowsSendWrite, rawSendWrite)
        try settle()

        // Each device sent to above holds the rows of a device two messages longer.
        let rawRows = devices * encoded.count + probes * (grownAgainRows.count - encoded.count)
        let rawScan = rate(devices) { precondition(raw.reduce(0) { $0 + $1.scanCount() } == rawRows) }
        let loadOne = try rate(devices) {
            let loaded = try rows.reduce(0) { $0 + (try load($1)) }
            precondition(loaded == devices)
        }
        report("load every device, one store after another", loadOne, rawScan)
        // Two threads, each taking two stores one after the other; each writes its own element.
        nonisolated(unsafe) let loaded = UnsafeMutableBufferPointer<Int>.allocate(capacity: 2)
        defer { loaded.deallocate() }
        let rawScanTwo = rate(devices) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                loaded[thread] = raw[thread].scanCount() + raw[thread + 2].scanCount()
            }
            precondition(loaded[0] + loaded[1] == rawRows)
        }
        let loadTwo = rate(devices) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                loaded[thread] = (try? load(rows[thread]) + load(rows[thread + 2])) ?? -1
            }
            precondition(loaded[0] + loaded[1] == devices)
        }
        report("load every device, two threads", loadTwo, rawScanTwo)

        // A restore with no local state: the changelog (a status and a message a device, each
        // device's records together, the devices in random order) applied into empty rows in
        // batches of 100,000 records, against raw puts of the rows that result; per record.
        let changes = tokens.flatMap { token -> [(token: String, change: StateChange)] in
            [(token, .device(device.status))] + device.waiting.map { (token, .enqueued($0)) }
                + device.unacknowledged.all.map { (token, .awaitingAcknowledgement(messageID: $0)) }
        }
        let applied = try (0..<stores).map { try DeviceRows(at: "\(directory)/applied-\($0)", cacheBytes: 64 << 20) }
        let rawApplied = try (0..<stores).map { try RawStore(path: "\(directory)/raw-applied-\($0)") }
        let rawApply = rate(changes.count) {
            for (index, token) in tokens.enumerated() { rawApplied[index % stores].put(token, encoded) }
            for store in rawApplied { store.flushBatch() }
        }
        // Each store's records, each device's together.
        var perStore = [[(token: String, change: StateChange)]](repeating: [], count: stores)
        for (index, change) in changes.enumerated() {
            perStore[index / (changes.count / devices) % stores].append(change)
        }
        for store in rawApplied { store.settle() }
        let rowsApply = try rate(changes.count) { try applyInParts(perStore, to: applied, inBulk: false) }
        let first = try applied[0].device(tokens[0])
        precondition(first == device)
        report("apply a changelog into empty rows, per record", rowsApply, rawApply)

        // The same parts, each applied as one table file instead of a batch: the rows read as
        // before, the writes past the memtable.
        for store in applied { try store.settle() }
        let appliedInBulk = try (0..<stores).map {
            try DeviceRows(at: "\(directory)/applied-in-bulk-\($0)", cacheBytes: 64 << 20)
        }
        let rowsApplyInBulk = try rate(changes.count) { try applyInParts(perStore, to: appliedInBulk, inBulk: true) }
        let firstInBulk = try appliedInBulk[0].device(tokens[0])
        precondition(firstInBulk == device)
        report("apply a changelog into empty rows, a table file a part, per record", rowsApplyInBulk, rawApply)

        // Every device loaded into empty rows in one table file a store, against the same
        // encoded rows, sorted and ingested through the C API.
        for store in rawApplied { store.settle() }
        for store in appliedInBulk { try store.settle() }
        let rawLoaded = try (0..<stores).map { try RawStore(path: "\(directory)/raw-loaded-\($0)") }
        let rawLoad = try rate(devices) {
            for store in 0..<stores {
                try rawLoaded[store].ingest(
                    stride(from: store, to: devices, by: stores).map { tokens[$0] }, encoded,
                    file: "\(directory)/raw-load-\(store).sst")
            }
        }
        for store in rawLoaded { store.settle() }
        let bulk = try (0..<stores).map { try DeviceRows(at: "\(directory)/loaded-\($0)", cacheBytes: 64 << 20) }
        let rowsLoad = try rate(devices) {
            for store in 0..<stores {
                try bulk[store].load(
                    stride(from: store, to: devices, by: stores).map { (tokens[$0], Optional(device)) },
                    checkpoint: Int64(devices))
            }
        }
        let firstLoaded = try bulk[0].device(tokens[0])
        precondition(firstLoaded == device)
        report("load every device into empty rows, a table file a store", rowsLoad, rawLoad)

        // The changelog of the apply phase replayed in memory, as a restore does, and then loaded
        // into empty rows: what docs/SCALING.md's bulk loads would make of a restore with no
        // local state; per record, against the apply phase's baseline.
        for store in bulk { try store.settle() }
        let replayed = try (0..<stores).map { try DeviceRows(at: "\(directory)/replayed-\($0)", cacheBytes: 64 << 20) }
        let rowsReplay = try rate(changes.count) {
            for (store, changes) in perStore.enumerated() { try replayAndLoad(changes, into: replayed[store]) }
        }
        let firstReplayed = try replayed[0].device(tokens[0])
        precondition(firstReplayed == device)
        report("replay a changelog in memory, then load it into empty rows, per record", rowsReplay, rawApply)

        // The same, the four stores on two threads, two each, as a restore of four partitions
        // could run on two cores (the changelog's reading aside).
        for store in replayed { try store.settle() }
        let replayedTwo = try (0..<stores).map {
            try DeviceRows(at: "\(directory)/replayed-two-\($0)", cacheBytes: 64 << 20)
        }
        let parts = perStore
        let rowsReplayTwo = rate(changes.count) {
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                for store in [thread, thread + 2] {
                    do {
                        try replayAndLoad(parts[store], into: replayedTwo[store])
                    } catch {
                        preconditionFailure("\(error)")
                    }
                }
            }
        }
        let firstReplayedTwo = try replayedTwo[0].device(tokens[0])
        precondition(firstReplayedTwo == device)
        report("the same, two threads", rowsReplayTwo, rawApply)
    }

    /// Each store's changes applied to its rows in parts of a quarter of a restore's poll
    /// (100,000 records), each part in a batch or, `inBulk`, as a table file.
    static func applyInParts(
        _ perStore: [[(token: String, change: StateChange)]], to rows: [DeviceRows], inBulk: Bool
    ) throws {
        for (store, changes) in perStore.enumerated() {
            for start in stride(from: 0, to: changes.count, by: 100_000 / stores) {
                let end = min(start + 100_000 / stores, changes.count)
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

    static func token(_ index: Int) -> String {
        "d\(index):APA91b" + String(repeating: "x", count: 140)
    }

    /// The key ``DeviceRows`` gives `token`'s head row; a message's row adds `m` and its id.
    static func key(_ token: String) -> [UInt8] {
        [UInt8(ascii: "d")] + withUnsafeBytes(of: UInt32(token.utf8.count).bigEndian) { Array($0) } + Array(token.utf8)
    }

    /// The ids of the messages `changes` add to or remove from a queue: the message rows they change.
    static func messageIDs(_ changes: [StateChange]) -> Set<String> { Set(changes.compactMap(\.waitingMessageID)) }

    /// `device`'s rows as ``DeviceRows`` writes them: its head first (an empty key suffix), then
    /// each message's, keyed by what follows the token (`m` and the id), in key order.
    static func rowsOf(_ device: DeviceQueue) -> [(key: [UInt8], value: [UInt8])] {
        var writer = ByteWriter(capacity: 1_024)
        DeviceRow.writeHead(device, to: &writer)
        var rows = [(key: [UInt8](), value: writer.withUnsafeBytes { Array($0) })]
        for message in device.waiting {
            writer.truncate(to: 0)
            DeviceRow.writeMessage(message, to: &writer)
            rows.append(([UInt8(ascii: "m")] + Array(message.id.utf8), writer.withUnsafeBytes { Array($0) }))
        }
        return [rows[0]] + rows.dropFirst().sorted { $0.key.lexicographicallyPrecedes($1.key) }
    }

    /// An offline device with `messages` messages waiting and `acknowledgements` ids awaiting
    /// `ack`, as a device that was sent messages while online and left without acknowledging them.
    static func sampleDevice(acknowledgements: Int, messages: Int) -> DeviceQueue {
        var ids = UnacknowledgedIDs()
        for index in 0..<acknowledgements { ids.append("0:1700000000000000%31bd1c96\(index)") }
        let status = DeviceStatus(isOnline: false, lastActivity: 1_700_000_000_000, pendingNotice: nil)
        return DeviceQueue(status: status, waiting: (1...max(messages, 1)).map(message), unacknowledged: ids)
    }

    /// A message of about 300 payload bytes, `index` in its id, expiring four weeks after it was
    /// sent (the default time to live).
    static func message(_ index: Int) -> QueuedMessage {
        let apns = Array(
            #"{"aps":{"alert":{"title":"New message","body":"\#(String(repeating: "Hello there, ", count: 14))"},"sound":"default"},"conversation":"c-42"}"#
                .utf8)
        return QueuedMessage(
            id: "0:1700000000000000%31bd1c9631bd1c9\(index)", collapseKey: nil, sentAt: 1_700_000_000_000,
            expiresAt: 1_702_419_200_000, apns: apns)
    }

    /// Every device of `rows`, decoded into a dictionary by token, as a restart rebuilds them.
    static func load(_ rows: DeviceRows) throws -> Int {
        var held: [DeviceKey: DeviceQueue] = [:]
        try rows.forEachDevice { token, device in held[DeviceKey(token: token)] = device }
        return held.count
    }

    static func rate(_ operations: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(operations) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    static func report(_ label: String, _ rows: Double, _ raw: Double) {
        print("| \(label) | \(Int(rows)) | \(Int(raw)) | \(String(format: "%.2f", rows / raw)) |")
    }
}

struct RawStoreError: Error {
    let message: String
}

/// A RocksDB database through the C API alone, with ``DeviceRows``' options: the baseline.
/// `@unchecked Sendable`: two threads scan through RocksDB, which is thread-safe; the batch and
/// `pending` are used by the writing thread alone.
final class RawStore: @unchecked Sendable {
    let handle: OpaquePointer
    let batch = rocksdb_writebatch_create()
    let readOptions = rocksdb_readoptions_create()
    let scanOptions = rocksdb_readoptions_create()
    let writeOptions = rocksdb_writeoptions_create()
    var pending = 0

    init(path: String) throws {
        guard let options = RocksOptions(cacheBytes: 64 << 20) else { throw RawStoreError(message: "no block cache") }
        var error: UnsafeMutablePointer<CChar>?
        guard let handle = rocksdb_open(options.pointer, path, &error), error == nil else {
            defer { rocksdb_free(error) }
            throw RawStoreError(message: error.map { String(cString: $0) } ?? "unknown")
        }
        self.handle = handle
    }

    deinit {
        rocksdb_close(handle)
        rocksdb_writebatch_destroy(batch)
        rocksdb_readoptions_destroy(readOptions)
        rocksdb_readoptions_destroy(scanOptions)
        rocksdb_writeoptions_destroy(writeOptions)
    }

    /// Puts `token`'s rows, each keyed by the token's key and its own suffix, in the batch.
    func put(_ token: String, _ rows: [(key: [UInt8], value: [UInt8])]) {
        write(token, rows.map { ($0.key, Optional($0.value)) })
    }

    /// Puts or (nil) deletes `token`'s rows in the batch; a device's rows count as one write.
    func write(_ token: String, _ rows: [(key: [UInt8], value: [UInt8]?)]) {
        let head = DeviceRowsBenchmark.key(token)
        for (suffix, value) in rows {
            (head + suffix).withUnsafeBytes { key in
                if let value {
                    value.withUnsafeBytes { value in
                        rocksdb_writebatch_put(batch, key.baseAddress, key.count, value.baseAddress, value.count)
                    }
                } else {
                    rocksdb_writebatch_delete(batch, key.baseAddress, key.count)
                }
            }
        }
        pending += 1
        if pending == DeviceRowsBenchmark.batchSize { flushBatch() }
    }

    func flushBatch() {
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_write(handle, writeOptions, batch, &error)
        precondition(error == nil, "RocksDB: \(error.map { String(cString: $0) } ?? "")")
        rocksdb_writebatch_clear(batch)
        pending = 0
    }

    /// Whether `token`'s head row is held: a point read, and, with `messages`, a scan of its
    /// message rows after it, as ``DeviceRows/device(_:)`` reads a device with messages.
    func read(_ token: String, messages: Bool) -> Bool {
        let key = DeviceRowsBenchmark.key(token)
        var length = 0
        var error: UnsafeMutablePointer<CChar>?
        let value = key.withUnsafeBytes { rocksdb_get(handle, readOptions, $0.baseAddress, $0.count, &length, &error) }
        defer { rocksdb_free(value) }
        precondition(error == nil, "RocksDB: \(error.map { String(cString: $0) } ?? "")")
        guard value != nil, messages else { return value != nil }
        let prefix = key + [UInt8(ascii: "m")]
        let iterator = rocksdb_create_iterator(handle, readOptions)
        defer { rocksdb_iter_destroy(iterator) }
        prefix.withUnsafeBytes { rocksdb_iter_seek(iterator, $0.baseAddress, $0.count) }
        while rocksdb_iter_valid(iterator) != 0 {
            var keyLength = 0
            let found = UnsafeRawBufferPointer(start: rocksdb_iter_key(iterator, &keyLength), count: keyLength)
            guard found.starts(with: prefix) else { break }
            _ = rocksdb_iter_value(iterator, &length)
            rocksdb_iter_next(iterator)
        }
        return true
    }

    /// Writes `rows` under each of `tokens`, sorted, into the table file `file` and ingests it.
    func ingest(_ tokens: [String], _ rows: [(key: [UInt8], value: [UInt8])], file: String) throws {
        let keyed = tokens.map(DeviceRowsBenchmark.key).sorted { $0.lexicographicallyPrecedes($1) }.flatMap { head in
            rows.map { (head + $0.key, $0.value) }
        }
        let environment = rocksdb_envoptions_create()
        defer { rocksdb_envoptions_destroy(environment) }
        guard let options = RocksOptions(cacheBytes: 0) else { throw RawStoreError(message: "no options") }
        let writer = rocksdb_sstfilewriter_create(environment, options.pointer)
        defer { rocksdb_sstfilewriter_destroy(writer) }
        var error: UnsafeMutablePointer<CChar>?
        rocksdb_sstfilewriter_open(writer, file, &error)
        for (key, value) in keyed where error == nil {
            key.withUnsafeBytes { key in
                value.withUnsafeBytes { value in
                    rocksdb_sstfilewriter_put(
                        writer, key.baseAddress, key.count, value.baseAddress, value.count, &error)
                }
            }
        }
        if error == nil { rocksdb_sstfilewriter_finish(writer, &error) }
        let ingestOptions = rocksdb_ingestexternalfileoptions_create()
        defer { rocksdb_ingestexternalfileoptions_destroy(ingestOptions) }
        rocksdb_ingestexternalfileoptions_set_move_files(ingestOptions, 1)
        if error == nil {
            file.withCString { name in
                var names: [UnsafePointer<CChar>?] = [name]
                rocksdb_ingest_external_file(handle, &names, 1, ingestOptions, &error)
            }
        }
        if let error {
            defer { rocksdb_free(error) }
            throw RawStoreError(message: String(cString: error))
        }
    }

    /// Writes the memtable to disk and waits until no flush or compaction runs or is due.
    func settle() {
        let error = RocksSettling.settle(handle)
        precondition(error == nil, "RocksDB: \(error ?? "")")
    }

    func scanCount() -> Int {
        rocksdb_readoptions_set_fill_cache(scanOptions, 0)
        let iterator = rocksdb_create_iterator(handle, scanOptions)
        defer { rocksdb_iter_destroy(iterator) }
        rocksdb_iter_seek_to_first(iterator)
        var count = 0
        var bytes = 0
        while rocksdb_iter_valid(iterator) != 0 {
            var length = 0
            _ = rocksdb_iter_value(iterator, &length)
            bytes &+= length
            count += 1
            rocksdb_iter_next(iterator)
        }
        return count
    }
}
