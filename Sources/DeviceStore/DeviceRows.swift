import BridgeCore
import DeviceQueues
import FCMTranslation
import Foundation

/// One state partition's devices on disk, and the changelog offset the rows cover, written
/// together with them. The rows equal a replay of the changelog up to ``checkpoint()``; the
/// changelog after it is still to be applied.
///
/// Each device is a head row under its token and a row per waiting message under its token and
/// the message's id (``DeviceRow``), keyed so that a device's rows are next to each other:
///
///     head     := "d" u32 token length (big-endian), token
///     message  := head "m" message id
///
/// A token may hold any byte; its length first keeps one token's rows from mixing with another's.
/// Reads go through RocksDB's block cache, whose size the caller gives, and its bloom filters,
/// so asking for a device the partition does not hold costs mostly no disk read. The database
/// is closed when the last copy of the value goes; until then no other can open its directory.
public struct DeviceRows: Sendable {
    private let database: RocksDatabase

    /// The key of the checkpoint; device keys start with `d`, so none can be this one.
    private static let checkpointKey = Array("checkpoint".utf8)
    /// The key of the rows' layout, written when they are created: rows of another are refused.
    private static let layoutKey = Array("layout".utf8)
    private static let layout: [UInt8] = [2]
    private static let devicePrefix = UInt8(ascii: "d")
    private static let messageMark = UInt8(ascii: "m")

    /// Opens the rows in directory `path`, creating them empty when there are none, with a
    /// block cache of at most `cacheBytes` and, when given, at most two memtables of
    /// `writeBufferBytes` each (RocksDB's default: 64 MiB). Deletes the table files of loads a
    /// crash cut short. Throws for rows of another layout.
    public init(at path: String, cacheBytes: Int, writeBufferBytes: Int? = nil) throws(DeviceStoreError) {
        database = try RocksDatabase(path: path, cacheBytes: cacheBytes, writeBufferBytes: writeBufferBytes)
        // The database is open, so no other process has the directory, and no load runs yet.
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for file in files where file.hasPrefix(Self.loadFilePrefix) && file.hasSuffix(".sst") {
            do {
                try FileManager.default.removeItem(atPath: "\(path)/\(file)")
            } catch {
                throw DeviceStoreError(path: path, operation: "open", message: "cannot delete \(file): \(error)")
            }
        }
        try checkLayout()
    }

    /// Writes the layout into rows that hold nothing; throws for rows of another layout.
    private func checkLayout() throws(DeviceStoreError) {
        let layout = try database.withValue(of: Self.layoutKey) { $0.map { Array($0) } }.get()
        if layout == Self.layout { return }
        var isEmpty = true
        _ = try database.scan(from: []) { _, _ in
            isEmpty = false
            return false
        }
        guard isEmpty else {
            let found = layout.map { "layout \($0)" } ?? "an earlier layout"
            throw DeviceStoreError(
                path: path, operation: "open", message: "the rows are of \(found), not \(Self.layout)")
        }
        let batch = RocksBatch()
        Self.layout.withUnsafeBytes { batch.put(Self.layoutKey, $0) }
        try database.write(batch)
    }

    /// The directory the rows are in.
    public var path: String { database.path }

    /// The changelog offset the rows cover: the next record to apply. Nil before the first write;
    /// throws when the stored checkpoint does not read.
    public func checkpoint() throws(DeviceStoreError) -> Int64? {
        let read = try database.withValue(of: Self.checkpointKey) { value -> Int64?? in
            guard let value else { return .some(nil) }
            guard value.count == 8 else { return nil }
            return .some(Int64(littleEndian: value.loadUnaligned(as: Int64.self)))
        }.get()
        guard let checkpoint = read else {
            throw DeviceStoreError(path: path, operation: "read", message: "the checkpoint is not 8 bytes")
        }
        return checkpoint
    }

    /// The device under `token`; nil when the rows hold none. Throws when its rows do not read.
    /// A device not held costs one point read (mostly answered by the bloom filters); one with
    /// messages waiting, a scan of its message rows too.
    public func device(_ token: String) throws(DeviceStoreError) -> DeviceQueue? {
        let key = Self.key(token)
        let head = try inDoubt(
            database.withValue(of: key) { value throws(MalformedRecord) in
                try value.map { value throws(MalformedRecord) in try DeviceRow.readHead(value) }
            }, operation: "read")
        guard let head else { return nil }
        var messages: [String: QueuedMessage] = [:]
        if !head.waitingIDs.isEmpty {
            let prefix = key + [Self.messageMark]
            let scanned = try database.scan(from: prefix, fillingCache: true) { key, value throws(MalformedRecord) in
                guard key.starts(with: prefix) else { return false }
                let id = String(decoding: key.dropFirst(prefix.count), as: UTF8.self)
                messages[id] = try DeviceRow.readMessage(id: id, value)
                return true
            }
            _ = try inDoubt(scanned, operation: "read")
        }
        return try inDoubt(
            Result { () throws(MalformedRecord) in try head.device(messages: messages) }, operation: "read")
    }

    /// Writes each device (nil: removes it) whole, and `checkpoint`, as one batch: all of them or none.
    public func write(_ devices: [(token: String, device: DeviceQueue?)], checkpoint: Int64) throws(DeviceStoreError) {
        try write(Self.whole(devices), checkpoint: checkpoint)
    }

    /// Writes each update and `checkpoint` as one batch: all of them or none.
    public func write(_ updates: [DeviceRowUpdate], checkpoint: Int64) throws(DeviceStoreError) {
        let rows = try rows(of: updates)
        let batch = RocksBatch()
        var value = ByteWriter(capacity: 1_024)
        for (key, row) in rows {
            if row.write(to: &value) {
                value.withUnsafeBytes { batch.put(key, $0) }
            } else {
                batch.delete(key)
            }
        }
        withUnsafeBytes(of: checkpoint.littleEndian) { batch.put(Self.checkpointKey, $0) }
        try database.write(batch)
    }

    /// Applies changelog changes, in order, to the devices they name, and moves the checkpoint to
    /// `checkpoint`, all or nothing: each device named is read once, changed as a restore changes
    /// it (``DeviceQueue/restore(_:onto:)``) and written once with the rows of the messages that
    /// joined or left it, or removed once forgotten. The devices go in one batch, or, `inBulk`,
    /// in one table file (``load(_:checkpoint:)``): for the large parts of a restore.
    public func apply(
        _ changes: [(token: String, change: StateChange)], checkpoint: Int64, inBulk: Bool = false
    ) throws(DeviceStoreError) {
        var devices: [String: (device: DeviceQueue?, messages: Set<String>)] = [:]
        var read: [String: DeviceQueue?] = [:]
        var order: [String] = []
        for (token, change) in changes {
            if devices.index(forKey: token) == nil {
                let device = try device(token)
                devices[token] = (device, [])
                read[token] = device
                order.append(token)
            }
            DeviceQueue.restore(change, onto: &devices[token, default: (nil, [])].device)
            if let id = change.waitingMessageID { devices[token]?.messages.insert(id) }
            // A forgotten device's messages leave with it, unnamed, though it may come back.
            if case .forgotten = change { devices[token]?.messages.formUnion(read[token]??.waiting.map(\.id) ?? []) }
        }
        let updates = order.map { token in
            let (device, messages) = devices[token] ?? (nil, [])
            return DeviceRowUpdate(token: token, device: device, messages: .named(messages))
        }
        if inBulk {
            try load(updates, checkpoint: checkpoint)
        } else {
            try write(updates, checkpoint: checkpoint)
        }
    }

    /// Loads `devices` (nil: removes it) whole, each token once, and `checkpoint` in one table
    /// file added to the rows whole, past RocksDB's write path: for rows built in one go, as a
    /// restore with no local state builds them. The others keep their rows. Throws, leaving the
    /// rows as they were, when a token is given twice or the file cannot be written.
    public func load(_ devices: [(token: String, device: DeviceQueue?)], checkpoint: Int64)
        throws(DeviceStoreError)
    {
        try load(Self.whole(devices), checkpoint: checkpoint)
    }

    /// Loads each update, each token once, and `checkpoint` in one table file, as
    /// ``load(_:checkpoint:)-([(String,DeviceQueue?)],_)`` does.
    public func load(_ updates: [DeviceRowUpdate], checkpoint: Int64) throws(DeviceStoreError) {
        try load(rows(of: updates), checkpoint: checkpoint)
    }

    /// Updates that write each of `devices` whole.
    private static func whole(_ devices: [(token: String, device: DeviceQueue?)]) -> [DeviceRowUpdate] {
        devices.map { DeviceRowUpdate(token: $0.token, device: $0.device, messages: .all) }
    }

    /// The rows `updates` make, in their order.
    private func rows(of updates: [DeviceRowUpdate]) throws(DeviceStoreError) -> [(key: [UInt8], row: Row)] {
        var rows: [(key: [UInt8], row: Row)] = []
        for update in updates {
            try self.rows(of: update.device, token: update.token, update.messages.rows, into: &rows)
        }
        return rows
    }

    /// Writes `rows` and `checkpoint` into one table file and adds it to the rows whole.
    private func load(_ rows: [(key: [UInt8], row: Row)], checkpoint: Int64) throws(DeviceStoreError) {
        // The places are sorted, not the rows: moving those would retain and release.
        var order = Array(rows.indices)
        rows.withUnsafeBufferPointer { rows in order.sort { rows[$0].key.lexicographicallyPrecedes(rows[$1].key) } }
        let file = "\(path)/\(Self.loadFilePrefix)\(UInt64.random(in: 0...UInt64.max)).sst"
        try database.ingest(through: file) { (put) throws(DeviceStoreError) in
            var value = ByteWriter(capacity: 1_024)
            // The checkpoint's key sorts before every device's, as the file's keys must.
            withUnsafeBytes(of: checkpoint.littleEndian) { value.append($0) }
            try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(Self.checkpointKey, bytes) }
            for index in order {
                let (key, row) = rows[index]
                guard row.write(to: &value) else {
                    try put(key, nil)
                    continue
                }
                try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(key, bytes) }
            }
        }
    }

    /// Replaces the rows with `devices`, each token once, and moves the checkpoint to
    /// `checkpoint`, in one load: all or nothing, each row that is not one of `devices`' removed
    /// with it. For rows rebuilt whole from the state in memory.
    public func replaceAll(with devices: [(token: String, device: DeviceQueue)], checkpoint: Int64)
        throws(DeviceStoreError)
    {
        var rows: [(key: [UInt8], row: Row)] = []
        for (token, device) in devices { try self.rows(of: device, token: token, .everyWaiting, into: &rows) }
        let given = Set(rows.lazy.map(\.key))
        _ = try database.scan(from: [Self.devicePrefix]) { key, _ in
            guard key.first == Self.devicePrefix else { return false }
            let key = Array(key)
            if !given.contains(key) { rows.append((key, .removed)) }
            return true
        }
        try load(rows, checkpoint: checkpoint)
    }

    /// How the table file of a load starts its name, in the rows' directory: RocksDB leaves it
    /// alone (its own files are numbered) and takes it in under a name of its own. Each load's
    /// name ends in a random number, so that loads may run at once.
    private static let loadFilePrefix = "load-"

    /// Calls `body` with every device held, in the order of their keys: by their tokens' lengths,
    /// then their bytes.
    public func forEachDevice(_ body: (_ token: String, _ device: DeviceQueue) -> Void) throws(DeviceStoreError) {
        var held: (token: String, head: DeviceRow.Head, messages: [String: QueuedMessage])?
        let scanned = try database.scan(from: [Self.devicePrefix]) { key, value throws(MalformedRecord) in
            guard key.first == Self.devicePrefix else { return false }
            guard let (token, rest) = Self.tokenAndRest(ofKey: key) else {
                throw MalformedRecord(description: "device row has a key that names no token")
            }
            if rest.isEmpty {
                if let held { body(held.token, try held.head.device(messages: held.messages)) }
                held = (String(decoding: token, as: UTF8.self), try DeviceRow.readHead(value), [:])
            } else {
                guard rest.first == Self.messageMark, let device = held, token.elementsEqual(device.token.utf8) else {
                    throw MalformedRecord(description: "device row of a message has no device")
                }
                let id = String(decoding: rest.dropFirst(), as: UTF8.self)
                held?.messages[id] = try DeviceRow.readMessage(id: id, value)
            }
            return true
        }
        _ = try inDoubt(scanned, operation: "scan")
        if let held {
            let last = Result { () throws(MalformedRecord) in try held.head.device(messages: held.messages) }
            body(held.token, try inDoubt(last, operation: "scan"))
        }
    }

    /// The key of `token`'s head row.
    private static func key(_ token: String) -> [UInt8] {
        var key = [devicePrefix]
        key.reserveCapacity(5 + token.utf8.count)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: token.utf8.count).bigEndian) { key.append(contentsOf: $0) }
        key.append(contentsOf: token.utf8)
        return key
    }

    /// The token a device key names, and what follows it; nil for a key too short for its length.
    private static func tokenAndRest(ofKey key: UnsafeRawBufferPointer) -> (
        token: UnsafeRawBufferPointer.SubSequence, rest: UnsafeRawBufferPointer.SubSequence
    )? {
        guard key.count >= 5 else { return nil }
        let length = key[1..<5].reduce(0) { $0 << 8 | Int($1) }
        guard length <= key.count - 5 else { return nil }
        return (key[5..<(5 + length)], key[(5 + length)...])
    }

    /// The rows `device` makes under `token`, with the message rows `messages`, appended to
    /// `rows`; a device removed (nil) takes every message row of its token with it.
    private func rows(
        of device: DeviceQueue?, token: String, _ messages: MessageRows, into rows: inout [(key: [UInt8], row: Row)]
    ) throws(DeviceStoreError) {
        let head = Self.key(token)
        rows.append((head, device.map(Row.head) ?? .removed))
        let messageKey = { (id: String) in head + [Self.messageMark] + Array(id.utf8) }
        let messages = device == nil ? .all : messages
        switch messages {
        case .named(let ids):
            for id in ids {
                let message = device?.waiting.first { $0.hasID(id) }
                rows.append((messageKey(id), message.map(Row.message) ?? .removed))
            }
        case .everyWaiting, .all:
            let waiting = device?.waiting ?? WaitingMessages()
            for message in waiting { rows.append((messageKey(message.id), .message(message))) }
            guard case .all = messages else { return }
            let prefix = head + [Self.messageMark]
            let kept = Set(waiting.lazy.map { Array($0.id.utf8) })
            _ = try database.scan(from: prefix) { key, _ in
                guard key.starts(with: prefix) else { return false }
                if !kept.contains(Array(key.dropFirst(prefix.count))) { rows.append((Array(key), .removed)) }
                return true
            }
        }
    }

    /// Waits until RocksDB has written everything to disk and no compaction runs or is due.
    @_spi(Benchmarks) public func settle() throws(DeviceStoreError) { try database.settle() }

    /// `result`'s value, or a store error saying what of a row does not read (never its token).
    private func inDoubt<T>(_ result: Result<T, MalformedRecord>, operation: String) throws(DeviceStoreError) -> T {
        switch result {
        case .success(let value): return value
        case .failure(let malformed):
            throw DeviceStoreError(path: path, operation: operation, message: malformed.description)
        }
    }
}

/// What one row of a device becomes.
private enum Row {
    case head(DeviceQueue)
    case message(QueuedMessage)
    case removed

    /// Writes the row's value into `value`, emptied first; false for a removed row.
    func write(to value: inout ByteWriter) -> Bool {
        value.truncate(to: 0)
        switch self {
        case .head(let device): DeviceRow.writeHead(device, to: &value)
        case .message(let message): DeviceRow.writeMessage(message, to: &value)
        case .removed: return false
        }
        return true
    }
}

/// Which message rows of a device a write makes: ``DeviceRowUpdate/Messages``, and every
/// waiting message's without a look at what the rows held, for rows replaced whole.
private enum MessageRows {
    case named(Set<String>)
    case all
    case everyWaiting
}

extension DeviceRowUpdate.Messages {
    fileprivate var rows: MessageRows {
        switch self {
        case .named(let ids): .named(ids)
        case .all: .all
        }
    }
}
