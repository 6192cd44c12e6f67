#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Heap memory for the buffers made per record (a document's bytes and nodes, an output's
/// bytes), from `malloc`. Swift's `UnsafeMutableRawPointer.allocate` takes the runtime's aligned
/// path (`posix_memalign`) for every alignment, at more than twice the instructions of `malloc`;
/// `malloc`'s 16-byte alignment is enough for everything kept here.
enum HeapMemory {
    /// Uninitialized memory for `byteCount` bytes (at least one), to be given back with ``free(_:)``.
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        if let memory = malloc(max(byteCount, 1)) { return memory }
        // Out of memory: Swift's allocator reports it as it does everywhere else.
        return .allocate(byteCount: byteCount, alignment: 16)
    }

    /// Memory for `count` values of `T` (alignment at most 16).
    static func allocate<T>(capacity count: Int, of _: T.Type) -> UnsafeMutablePointer<T> {
        allocate(byteCount: count * MemoryLayout<T>.stride).bindMemory(to: T.self, capacity: count)
    }

    static func free(_ memory: UnsafeMutableRawPointer) {
        #if canImport(Glibc)
            Glibc.free(memory)
        #elseif canImport(Darwin)
            Darwin.free(memory)
        #endif
    }

    static func free<T>(_ memory: UnsafeMutablePointer<T>) { free(UnsafeMutableRawPointer(memory)) }
}
