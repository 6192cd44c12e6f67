/// The members of one topic, by token, in buckets of a hash that is the same in every process
/// (murmur2, as the partitioner's): a fan-out walks them bucket by bucket, each bucket whole, so
/// that where it stopped (a bucket number) means the same after a restart and whatever joined
/// or left meanwhile.
///
/// A member costs its token's bytes, its string's storage, and its key in its bucket (compared by
/// its bytes, as ``DeviceKey`` compares).
public struct TopicMembers: Sendable {
    /// How many buckets there are: 2^16, the top half of the token's murmur2.
    public static let bucketCount = 1 << 16

    private var buckets: [UInt16: [DeviceKey]] = [:]
    /// The buckets that hold members, in order.
    private var occupied: [UInt16] = []
    /// How many members there are.
    public private(set) var count = 0

    /// No members.
    public init() {}

    /// The bucket of `token`.
    public static func bucket(of token: String) -> UInt16 {
        UInt16(truncatingIfNeeded: Murmur2Partitioner.murmur2(token.utf8) >> 16)
    }

    /// Whether `token` is a member.
    public func contains(_ token: String) -> Bool {
        buckets[Self.bucket(of: token)]?.contains(DeviceKey(token: token)) ?? false
    }

    /// Adds `token`; false when it was a member already.
    @discardableResult
    public mutating func insert(_ token: String) -> Bool {
        let bucket = Self.bucket(of: token)
        let key = DeviceKey(token: token)
        if buckets[bucket]?.contains(key) == true { return false }
        if buckets[bucket] == nil { occupied.insert(bucket, at: firstOccupied(atOrAfter: Int(bucket))) }
        buckets[bucket, default: []].append(key)
        count += 1
        return true
    }

    /// Removes `token`; false when it was not a member.
    @discardableResult
    public mutating func remove(_ token: String) -> Bool {
        let bucket = Self.bucket(of: token)
        guard var members = buckets[bucket], let index = members.firstIndex(of: DeviceKey(token: token))
        else { return false }
        buckets[bucket] = nil  // so that the array is not shared while it changes
        members.swapAt(index, members.count - 1)
        members.removeLast()
        if members.isEmpty {
            occupied.remove(at: firstOccupied(atOrAfter: Int(bucket)))
        } else {
            buckets[bucket] = members
        }
        count -= 1
        return true
    }

    /// The members of whole buckets from bucket `start` on, until they are at least `limit` or
    /// the buckets end; and the bucket to go on from (nil: none is left).
    public func chunk(from start: Int, limit: Int) -> (members: [String], next: Int?) {
        var members: [String] = []
        var position = firstOccupied(atOrAfter: start)
        while position < occupied.count, members.count < max(limit, 1) {
            members += (buckets[occupied[position]] ?? []).map(\.token)
            position += 1
        }
        return (members, position < occupied.count ? Int(occupied[position]) : nil)
    }

    /// The place in `occupied` of the first bucket at or after `bucket`.
    private func firstOccupied(atOrAfter bucket: Int) -> Int {
        var low = 0
        var high = occupied.count
        while low < high {
            let middle = (low + high) / 2
            if Int(occupied[middle]) < bucket { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
