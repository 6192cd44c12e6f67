import BridgeCore
import DeviceQueues

extension DeviceRows {
    /// The device under `token`; nil when the rows hold none. Throws when its rows do not read.
    /// A device not held costs one point read (mostly answered by the bloom filters); one with
    /// messages waiting, a batched read of the message rows its head lists too.
    public func device(_ token: String) throws(DeviceStoreError) -> DeviceQueue? {
        let key = Self.key(token)
        let head = try inDoubt(
            database.withValue(of: key) { value throws(MalformedRecord) in
                try value.map { value throws(MalformedRecord) in try DeviceRow.readHead(value) }
            }, operation: "read")
        guard let head else { return nil }
        return try devices(heads: [(key, head)]).first
    }

    /// The devices under `tokens` that the rows hold, by token: their heads in one batched read
    /// (RocksDB's `MultiGet`), then the rows of the messages the heads list in another. A token
    /// not held costs a lookup that the bloom filters mostly answer. Throws when a device's rows
    /// do not read.
    public func devices(_ tokens: some Collection<String>) throws(DeviceStoreError) -> [String: DeviceQueue] {
        let tokens = Array(tokens)
        let keys = tokens.map(Self.key)
        var found: [(token: Int, head: DeviceRow.Head)] = []
        let readHeads = try database.withValues(of: keys) { index, value throws(MalformedRecord) in
            if let value { found.append((index, try DeviceRow.readHead(value))) }
        }
        try inDoubt(readHeads, operation: "read")
        let devices = try devices(heads: found.map { (keys[$0.token], $0.head) })
        return Dictionary(zip(found.lazy.map { tokens[$0.token] }, devices)) { _, last in last }
    }

    /// The devices `heads`, each under its key, make with the message rows they list, read in
    /// one batch; in the order of `heads`.
    private func devices(heads: [(key: [UInt8], head: DeviceRow.Head)]) throws(DeviceStoreError) -> [DeviceQueue] {
        var messageKeys: [[UInt8]] = []
        var ids: [String] = []
        for (key, head) in heads {
            for id in head.waitingIDs {
                messageKeys.append(key + [Self.messageMark] + Array(id.utf8))
                ids.append(id)
            }
        }
        // In the heads' order; a row missing leaves its device short, which the head refuses.
        var messages = [QueuedMessage?](repeating: nil, count: messageKeys.count)
        let read = try database.withValues(of: messageKeys) { index, value throws(MalformedRecord) in
            if let value { messages[index] = try DeviceRow.readMessage(id: ids[index], value) }
        }
        try inDoubt(read, operation: "read")
        var devices: [DeviceQueue] = []
        devices.reserveCapacity(heads.count)
        var start = 0
        for (_, head) in heads {
            let end = start + head.waitingIDs.count
            let waiting = messages[start..<end].compactMap { $0 }
            start = end
            devices.append(
                try inDoubt(
                    Result { () throws(MalformedRecord) in try head.device(waiting: waiting) }, operation: "read"))
        }
        return devices
    }

    /// Calls `body` with every device held, in the order of their keys: by their tokens' lengths,
    /// then their bytes.
    public func forEachDevice(_ body: (_ token: String, _ device: DeviceQueue) -> Void) throws(DeviceStoreError) {
        var held: (token: String, head: DeviceRow.Head, messages: [String: QueuedMessage])?
        try forEachRow { token, rest, value throws(MalformedRecord) in
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
        }
        if let held {
            let last = Result { () throws(MalformedRecord) in try held.head.device(messages: held.messages) }
            body(held.token, try inDoubt(last, operation: "scan"))
        }
    }

    /// The tokens of the devices idle at event time `time` under `rules`
    /// (``DeviceQueue/isIdle(at:rules:)``), in the order of their keys: a scan of every row, for
    /// the idle sweep of a partition served from the rows.
    public func idleTokens(at time: Int64, rules: QueueRules) throws(DeviceStoreError) -> [String] {
        var idle: [String] = []
        try forEachRow { token, rest, value throws(MalformedRecord) in
            // A message row: its device is not idle.
            guard rest.isEmpty else { return }
            let head = try DeviceRow.readHead(value)
            guard head.waitingIDs.isEmpty else { return }
            let device = DeviceQueue(status: head.status, waiting: [], unacknowledged: head.unacknowledged)
            if device.isIdle(at: time, rules: rules) { idle.append(String(decoding: token, as: UTF8.self)) }
        }
        return idle
    }

    /// Calls `body` with every device row, in key order: the token its key names, what follows
    /// the token (nothing for a head; `m` and an id for a message) and its value. Throws for a
    /// key that names no token, and what `body` throws, naming the directory.
    private func forEachRow(
        _ body: (
            _ token: UnsafeRawBufferPointer.SubSequence, _ rest: UnsafeRawBufferPointer.SubSequence,
            _ value: UnsafeRawBufferPointer
        ) throws(MalformedRecord) -> Void
    ) throws(DeviceStoreError) {
        let scanned = try database.scan(from: [Self.devicePrefix]) { key, value throws(MalformedRecord) in
            guard key.first == Self.devicePrefix else { return false }
            guard let (token, rest) = Self.nameAndRest(ofKey: key) else {
                throw MalformedRecord(description: "device row has a key that names no token")
            }
            try body(token, rest, value)
            return true
        }
        try inDoubt(scanned, operation: "scan")
    }
}
