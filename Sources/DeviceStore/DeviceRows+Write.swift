import BridgeCore
import DeviceQueues
import FCMTranslation
import Foundation

extension DeviceRows {
    /// Writes each device (nil: removes it) whole, and `checkpoint`, as one batch: all of them or none.
    public func write(_ devices: [(token: String, device: DeviceQueue?)], checkpoint: Int64) throws(DeviceStoreError) {
        try write(Self.whole(devices), checkpoint: checkpoint)
    }

    /// Writes each update, the member rows `members` make with the member counts of the topics
    /// they change (`memberCounts`), `checkpoint` and `counts` (nil: unknown, removed) as one
    /// batch: all of them or none.
    public func write(
        _ updates: [DeviceRowUpdate], members: [MemberRowChange] = [], memberCounts: [String: Int] = [:],
        checkpoint: Int64, counts: DeviceCounts? = nil
    ) throws(DeviceStoreError) {
        let rows = try rows(of: updates)
        let batch = RocksBatch()
        Self.add(members, to: batch)
        Self.add(memberCounts, to: batch)
        var value = ByteWriter(capacity: 1_024)
        for (key, row) in rows {
            if row.write(to: &value) {
                value.withUnsafeBytes { batch.put(key, $0) }
            } else {
                batch.delete(key)
            }
        }
        withUnsafeBytes(of: checkpoint.littleEndian) { batch.put(Self.checkpointKey, $0) }
        if let counts = counts.flatMap(Self.encoded) {
            counts.withUnsafeBytes { batch.put(Self.countsKey, $0) }
        } else {
            batch.delete(Self.countsKey)
        }
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
        try load(rows(of: updates), checkpoint: (checkpoint, nil))
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

    /// Writes `rows`, then each topic's member count and the member rows of `members` (each
    /// topic's members in walk order, which is their keys' order), into one table file and adds
    /// it to the rows whole; with `checkpoint`, the checkpoint and its counts (nil: removed) too.
    /// Adds nothing when there is nothing to write.
    private func load(
        _ rows: [(key: [UInt8], row: Row)], members: [String: TopicMembers] = [:],
        checkpoint: (offset: Int64, counts: DeviceCounts?)?
    ) throws(DeviceStoreError) {
        guard checkpoint != nil || !rows.isEmpty || members.values.contains(where: { $0.count > 0 }) else { return }
        // The places are sorted, not the rows: moving those would retain and release.
        var order = Array(rows.indices)
        rows.withUnsafeBufferPointer { rows in order.sort { rows[$0].key.lexicographicallyPrecedes(rows[$1].key) } }
        let topics = members.keys.map { (prefix: Self.memberTopicPrefix($0), topic: $0) }
            .sorted { $0.prefix.lexicographicallyPrecedes($1.prefix) }
        let counts = members.compactMap { topic, held in Self.encoded(memberCount: held.count).map { (topic, $0) } }
            .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        let file = "\(path)/\(Self.loadFilePrefix)\(UInt64.random(in: 0...UInt64.max)).sst"
        try database.ingest(through: file) { (put) throws(DeviceStoreError) in
            var value = ByteWriter(capacity: 1_024)
            // The checkpoint's and the counts' keys sort before every device's, as the file's keys must.
            if let (offset, counts) = checkpoint {
                withUnsafeBytes(of: offset.littleEndian) { value.append($0) }
                try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(Self.checkpointKey, bytes) }
                if let counts = counts.flatMap(Self.encoded) {
                    value.truncate(to: 0)
                    counts.withUnsafeBytes { value.append($0) }
                    try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(Self.countsKey, bytes) }
                } else {
                    try put(Self.countsKey, nil)
                }
            }
            for index in order {
                let (key, row) = rows[index]
                guard row.write(to: &value) else {
                    try put(key, nil)
                    continue
                }
                try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in try put(key, bytes) }
            }
            // Member counts' keys start with `n`, after every device's `d`; members' with `t`.
            for (topic, count) in counts {
                value.truncate(to: 0)
                count.withUnsafeBytes { value.append($0) }
                try value.withUnsafeBytes { (bytes) throws(DeviceStoreError) in
                    try put(Self.memberCountKey(topic), bytes)
                }
            }
            for (prefix, topic) in topics {
                try members[topic]?.forEachToken { (token) throws(DeviceStoreError) in
                    try put(Self.memberKey(prefix: prefix, token: token), UnsafeRawBufferPointer(start: nil, count: 0))
                }
            }
        }
    }

    /// Replaces the rows with `devices`, each token once, and the member rows with `members`'
    /// (by topic, counted), then applies the joins and leaves `later` with the member counts
    /// they leave (`laterCounts`), and moves the checkpoint to `checkpoint`, with the counts
    /// those devices make: for rows rebuilt whole from the state in memory, and the batches held
    /// after it. In three steps, each whole or not at all: every row, the checkpoint and the
    /// counts removed; the new rows loaded in one table file, each topic's members streamed into
    /// it as they are held; `later`, the checkpoint and the counts written. A crash between them
    /// leaves rows without a checkpoint, which a restore rebuilds; so does a step that throws (a
    /// token given twice, a full disk).
    public func replaceAll(
        with devices: [(token: String, device: DeviceQueue)], members: [String: TopicMembers] = [:],
        then later: [MemberRowChange] = [], laterCounts: [String: Int] = [:], checkpoint: Int64
    ) throws(DeviceStoreError) {
        let removal = RocksBatch()
        removal.delete(Self.checkpointKey)
        removal.delete(Self.countsKey)
        for prefix in [Self.devicePrefix, Self.memberCountPrefix, Self.memberPrefix] {
            removal.deleteRange(from: [prefix], to: [prefix + 1])
        }
        try database.write(removal)
        var rows: [(key: [UInt8], row: Row)] = []
        for (token, device) in devices { try self.rows(of: device, token: token, .everyWaiting, into: &rows) }
        try load(rows, members: members, checkpoint: nil)
        let final = RocksBatch()
        Self.add(later, to: final)
        Self.add(laterCounts, to: final)
        withUnsafeBytes(of: checkpoint.littleEndian) { final.put(Self.checkpointKey, $0) }
        if let counts = Self.encoded(DeviceCounts(of: devices.lazy.map(\.device))) {
            counts.withUnsafeBytes { final.put(Self.countsKey, $0) }
        }
        try database.write(final)
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
