#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A device token as a dictionary key: equal and hashed by its UTF-8 bytes. `String`'s own
/// equality is canonical equivalence, under which two different tokens (a composed and a
/// decomposed "é") would share one device.
///
/// The key keeps the hash of its bytes: a dictionary compares the key it looks for with every
/// key on its probe path, and tokens are long, so keys with different hashes are told apart
/// without reading their bytes; a stored key is not hashed again when the dictionary grows.
///
/// A restore makes keys where it decodes records, off the thread that changes device state.
public struct DeviceKey: Hashable, Sendable {
    /// The device token.
    public let token: String
    private let bytesHash: Int

    /// The key of `token`; its bytes are hashed here, once.
    public init(token: String) {
        self.token = token
        var hasher = Hasher()
        let hashed: Void? = token.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if hashed == nil { Array(token.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
        bytesHash = hasher.finalize()
    }

    public static func == (lhs: DeviceKey, rhs: DeviceKey) -> Bool {
        guard lhs.bytesHash == rhs.bytesHash else { return false }
        // One memcmp over the contiguous bytes of native strings (every token read from a
        // record); comparing element by element costs a loop turn per byte.
        let contiguous = lhs.token.utf8.withContiguousStorageIfAvailable { left in
            rhs.token.utf8.withContiguousStorageIfAvailable { right in
                guard left.count == right.count else { return false }
                guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
                return memcmp(leftBase, rightBase, left.count) == 0
            }
        }
        return (contiguous ?? nil)
            ?? (lhs.token.utf8.count == rhs.token.utf8.count && lhs.token.utf8.elementsEqual(rhs.token.utf8))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytesHash)
    }
}
