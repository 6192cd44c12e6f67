/// The Java client's default partitioner for keyed records: `toPositive(murmur2(key)) % partitions`.
///
/// librdkafka's `murmur2_random` partitioner computes the same, so any Kafka client in any
/// language finds the partition of a key this way.
public enum Murmur2Partitioner {
    /// The partition of `key` among `partitions` partitions (at least 1).
    public static func partition(of key: some Collection<UInt8>, partitions: Int32) -> Int32 {
        Int32(bitPattern: murmur2(key) & 0x7fff_ffff) % max(partitions, 1)
    }

    /// Kafka's 32-bit murmur2 hash, seed `0x9747b28c`.
    public static func murmur2(_ key: some Collection<UInt8>) -> UInt32 {
        // Contiguous keys (a native string's UTF-8, an array) are hashed in place, without a copy.
        key.withContiguousStorageIfAvailable(hash) ?? Array(key).withUnsafeBufferPointer(hash)
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        let m: UInt32 = 0x5bd1_e995
        var hash: UInt32 = 0x9747_b28c ^ UInt32(truncatingIfNeeded: bytes.count)
        let blocks = bytes.count / 4
        for block in 0..<blocks {
            let index = block * 4
            var k =
                UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(
                    bytes[index + 3]) << 24
            k &*= m
            k ^= k >> 24
            k &*= m
            hash &*= m
            hash ^= k
        }
        let tail = blocks * 4
        switch bytes.count % 4 {
        case 3:
            hash ^= UInt32(bytes[tail + 2]) << 16
            fallthrough
        case 2:
            hash ^= UInt32(bytes[tail + 1]) << 8
            fallthrough
        case 1:
            hash ^= UInt32(bytes[tail])
            hash &*= m
        default:
            break
        }
        hash ^= hash >> 13
        hash &*= m
        hash ^= hash >> 15
        return hash
    }
}
