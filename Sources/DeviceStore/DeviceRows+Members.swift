import BridgeCore

extension DeviceRows {
    /// Member rows start with this: a row per member of each topic whose partition the rows'
    /// is, keyed so that a topic's members sort in the order a fan-out walks them
    /// (``TopicMembers``: by bucket, then by the token's bytes), with an empty value:
    ///
    ///     member := "t" u32 topic length (big-endian), topic, u16 bucket (big-endian), token
    static let memberPrefix = UInt8(ascii: "t")

    /// The key of `token`'s row as a member of `topic`.
    static func memberKey(topic: String, token: String) -> [UInt8] {
        memberKey(prefix: memberTopicPrefix(topic), token: token)
    }

    /// The key of `token`'s row as a member of the topic whose keys start with `prefix`
    /// (``memberTopicPrefix(_:)``).
    static func memberKey(prefix: [UInt8], token: String) -> [UInt8] {
        var key = prefix
        key.reserveCapacity(key.count + 2 + token.utf8.count)
        withUnsafeBytes(of: TopicMembers.bucket(of: token).bigEndian) { key.append(contentsOf: $0) }
        key.append(contentsOf: token.utf8)
        return key
    }

    /// What the keys of `topic`'s member rows start with.
    static func memberTopicPrefix(_ topic: String) -> [UInt8] {
        var key = [memberPrefix]
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: topic.utf8.count).bigEndian) { key.append(contentsOf: $0) }
        key.append(contentsOf: topic.utf8)
        return key
    }

    /// Adds to `batch` the rows `changes` make, in order: a later change of a member wins.
    static func add(_ changes: [MemberRowChange], to batch: borrowing RocksBatch) {
        for change in changes {
            let key = memberKey(topic: change.topic, token: change.token)
            if change.isMember {
                batch.put(key, UnsafeRawBufferPointer(start: nil, count: 0))
            } else {
                batch.delete(key)
            }
        }
    }

    /// Calls `body` with every member row, in key order: each topic's members in the order a
    /// fan-out walks them. Throws for a key that names no topic or member.
    public func forEachMember(_ body: (_ topic: String, _ token: String) -> Void) throws(DeviceStoreError) {
        let scanned = try database.scan(from: [Self.memberPrefix]) { key, _ throws(MalformedRecord) in
            guard key.first == Self.memberPrefix else { return false }
            guard let (topic, rest) = Self.nameAndRest(ofKey: key), rest.count >= 2 else {
                throw MalformedRecord(description: "member row has a key that names no topic and member")
            }
            body(String(decoding: topic, as: UTF8.self), String(decoding: rest.dropFirst(2), as: UTF8.self))
            return true
        }
        try inDoubt(scanned, operation: "scan")
    }
}

extension DeviceRows {
    /// Whether each of `pairs`' tokens is a member of its topic, in the order of `pairs`: one
    /// batched read, mostly answered by the bloom filters for members that are not.
    public func memberships(_ pairs: [(topic: String, token: String)]) throws(DeviceStoreError) -> [Bool] {
        var found = [Bool](repeating: false, count: pairs.count)
        // A batch's pairs share a few topics: each topic's prefix is made once.
        var prefixes: [String: [UInt8]] = [:]
        let keys = pairs.map { pair in
            if let prefix = prefixes[pair.topic] { return Self.memberKey(prefix: prefix, token: pair.token) }
            let prefix = Self.memberTopicPrefix(pair.topic)
            prefixes[pair.topic] = prefix
            return Self.memberKey(prefix: prefix, token: pair.token)
        }
        try database.withValues(of: keys) { index, value in found[index] = value != nil }.get()
        return found
    }

    /// Up to `limit` members of `topic` from `cursor` on, in walk order, and whether they are
    /// all there are from it (a walk's chunk is read from these:
    /// ``TopicMembers/chunk(from:before:limit:maxBytes:)``). Throws for a key that names no member.
    public func members(of topic: String, from cursor: TopicMembers.Cursor, limit: Int) throws(DeviceStoreError)
        -> (tokens: [String], toEnd: Bool)
    {
        let prefix = Self.memberTopicPrefix(topic)
        var start = prefix
        withUnsafeBytes(of: cursor.bucket.bigEndian) { start.append(contentsOf: $0) }
        let after = cursor.after.map { start + Array($0.utf8) }
        start = after ?? start
        var tokens: [String] = []
        var toEnd = true
        let scanned = try database.scan(from: start) { key, _ throws(MalformedRecord) in
            guard key.starts(with: prefix) else { return false }
            guard key.count >= prefix.count + 2 else {
                throw MalformedRecord(description: "member row of topic \(topic) has a key that names no member")
            }
            if let after, key.elementsEqual(after) { return true }
            guard tokens.count < limit else {
                toEnd = false
                return false
            }
            tokens.append(String(decoding: key.dropFirst(prefix.count + 2), as: UTF8.self))
            return true
        }
        try inDoubt(scanned, operation: "scan")
        return (tokens, toEnd)
    }
}
