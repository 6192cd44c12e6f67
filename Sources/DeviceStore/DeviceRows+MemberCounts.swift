import BridgeCore

extension DeviceRows {
    /// Member count rows start with this: a row per topic with members, of the topics whose
    /// partition the rows' is, keyed by the topic's name, its value the count (64 bits,
    /// little-endian), written with the member rows it counts:
    ///
    ///     member count := "n" topic
    static let memberCountPrefix = UInt8(ascii: "n")
    /// The counts the rows keep: more is damage.
    private static let memberCountsKept: ClosedRange<Int64> = 1...(1 << 48)

    /// The key of `topic`'s member count.
    static func memberCountKey(_ topic: String) -> [UInt8] { [memberCountPrefix] + Array(topic.utf8) }

    /// Adds to `batch` each topic's member count of `counts` (none: its row removed).
    static func add(_ counts: [String: Int], to batch: borrowing RocksBatch) {
        for (topic, count) in counts {
            let key = memberCountKey(topic)
            if let value = encoded(memberCount: count) {
                value.withUnsafeBytes { batch.put(key, $0) }
            } else {
                batch.delete(key)
            }
        }
    }

    /// `count` as a member count row holds it; nil for none, or a count the rows do not keep.
    static func encoded(memberCount count: Int) -> [UInt8]? {
        guard memberCountsKept.contains(Int64(count)) else { return nil }
        return withUnsafeBytes(of: Int64(count).littleEndian) { Array($0) }
    }

    /// The members of each topic that has any, as the writes of its member rows counted them.
    /// Throws for a count row that does not read.
    public func memberCounts() throws(DeviceStoreError) -> [String: Int] {
        var counts: [String: Int] = [:]
        let scanned = try database.scan(from: [Self.memberCountPrefix]) { key, value throws(MalformedRecord) in
            guard key.first == Self.memberCountPrefix else { return false }
            guard value.count == 8 else {
                throw MalformedRecord(description: "a topic's member count is not 8 bytes")
            }
            let count = Int64(littleEndian: value.loadUnaligned(as: Int64.self))
            guard Self.memberCountsKept.contains(count) else {
                throw MalformedRecord(description: "a topic's member count is \(count), not one the rows keep")
            }
            counts[String(decoding: key.dropFirst(), as: UTF8.self)] = Int(count)
            return true
        }
        try inDoubt(scanned, operation: "scan")
        return counts
    }
}
