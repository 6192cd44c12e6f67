#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The members of one topic, by token, in buckets of a hash that is the same in every process
/// (murmur2, as the partitioner's), each bucket sorted by the tokens' bytes: a fan-out walks them
/// in that order, so that where it stopped (a ``Cursor``: a bucket and the last token met) means
/// the same after a restart and whatever joined or left meanwhile.
///
/// Finding a member is a binary search in its bucket, so tokens chosen to share a bucket cost a
/// logarithm, never a scan; a walk stops at its limit exactly, however full a bucket is.
public struct TopicMembers: Sendable, Equatable {
    /// Where a walk stopped: before the members of `bucket` whose token comes after `after`
    /// (after none: the whole bucket).
    public struct Cursor: Sendable, Hashable {
        public var bucket: UInt16
        public var after: String?

        /// The start of a walk.
        public static let start = Cursor(bucket: 0, after: nil)

        public init(bucket: UInt16, after: String?) {
            self.bucket = bucket
            self.after = after
        }
    }

    private var buckets: [UInt16: [DeviceKey]] = [:]
    /// The buckets that hold members, in order.
    private var occupied: [UInt16] = []
    /// How many members there are.
    public private(set) var count = 0

    /// No members.
    public init() {}

    /// The bucket of `token`: the top half of its murmur2.
    public static func bucket(of token: String) -> UInt16 {
        UInt16(truncatingIfNeeded: Murmur2Partitioner.murmur2(token.utf8) >> 16)
    }

    /// Whether `token` is a member.
    public func contains(_ token: String) -> Bool {
        guard let members = buckets[Self.bucket(of: token)] else { return false }
        return Self.search(token, in: members).found
    }

    /// Adds `token`; false when it was a member already.
    @discardableResult
    public mutating func insert(_ token: String) -> Bool {
        let bucket = Self.bucket(of: token)
        var members = buckets.removeValue(forKey: bucket) ?? []  // not shared while it changes
        let (index, found) = Self.search(token, in: members)
        if !found {
            if members.isEmpty { occupied.insert(bucket, at: firstOccupied(atOrAfter: Int(bucket))) }
            members.insert(DeviceKey(token: token), at: index)
            count += 1
        }
        buckets[bucket] = members
        return !found
    }

    /// Removes `token`; false when it was not a member.
    @discardableResult
    public mutating func remove(_ token: String) -> Bool {
        let bucket = Self.bucket(of: token)
        guard var members = buckets.removeValue(forKey: bucket) else { return false }
        let (index, found) = Self.search(token, in: members)
        if found {
            members.remove(at: index)
            count -= 1
        }
        if members.isEmpty {
            occupied.remove(at: firstOccupied(atOrAfter: Int(bucket)))
        } else {
            buckets[bucket] = members
        }
        return found
    }

    /// Calls `body` with every member's token, in walk order.
    public func forEachToken<E: Error>(_ body: (String) throws(E) -> Void) throws(E) {
        for bucket in occupied {
            for key in buckets[bucket] ?? [] { try body(key.token) }
        }
    }

    /// How many buckets there are: a walk's segments split `0..<bucketCount`.
    public static let bucketCount = 1 << 16

    /// Up to `limit` members from `cursor` on, in walk order, of the buckets before `end`, and
    /// no more than `maxBytes` of tokens (but at least one member when any is left); and the
    /// cursor to go on from (nil: none is left before `end`).
    public func chunk(from cursor: Cursor, before end: Int = bucketCount, limit: Int, maxBytes: Int = .max)
        -> (members: [String], next: Cursor?)
    {
        var members: [String] = []
        var bytes = 0
        let limit = max(limit, 1)
        var position = firstOccupied(atOrAfter: Int(cursor.bucket))
        while position < occupied.count, Int(occupied[position]) < end {
            let bucket = occupied[position]
            let keys = buckets[bucket] ?? []
            let resumes = bucket == cursor.bucket ? cursor.after : nil
            var start = 0
            if let last = resumes {
                let (index, found) = Self.search(last, in: keys)
                start = found ? index + 1 : index
            }
            for index in start..<keys.count {
                let size = keys[index].token.utf8.count
                if members.count >= limit || (!members.isEmpty && bytes + size > maxBytes) {
                    return (members, Cursor(bucket: bucket, after: index > start ? keys[index - 1].token : resumes))
                }
                members.append(keys[index].token)
                bytes += size
            }
            position += 1
        }
        return (members, nil)
    }

    /// The place of `token` in `members` (sorted by bytes): where it is, or where it would go.
    private static func search(_ token: String, in members: [DeviceKey]) -> (index: Int, found: Bool) {
        let index = members.partitionPoint { compare($0.token, token) < 0 }
        return (index, index < members.count && compare(members[index].token, token) == 0)
    }

    /// The order of two tokens' bytes (negative, zero or positive), with one memcmp over native
    /// strings' contiguous bytes.
    private static func compare(_ left: String, _ right: String) -> Int {
        var left = left
        var right = right
        return left.withUTF8 { a in
            right.withUTF8 { b in
                let shared = min(a.count, b.count)
                if shared > 0, let x = a.baseAddress, let y = b.baseAddress {
                    let order = memcmp(x, y, shared)
                    if order != 0 { return Int(order) }
                }
                return a.count - b.count
            }
        }
    }

    /// The place in `occupied` of the first bucket at or after `bucket`.
    private func firstOccupied(atOrAfter bucket: Int) -> Int {
        occupied.partitionPoint { Int($0) < bucket }
    }
}
