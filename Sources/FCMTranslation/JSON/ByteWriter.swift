#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A growable byte buffer for writing JSON: appends are a bounds check and a copy, with none of
/// `Array`'s per-call overhead. It frees the memory it allocated when it goes away.
public struct ByteWriter: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Whether `base` was allocated here (else it is the caller's scratch memory).
    private var ownsBase: Bool
    /// The bytes written so far.
    public private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = HeapMemory.allocate(byteCount: self.capacity)
        ownsBase = true
    }

    /// An empty buffer that starts in `scratch`, which must outlive it, and moves to memory of its
    /// own only if it outgrows it.
    @usableFromInline
    init(scratch: UnsafeMutableRawBufferPointer) {
        if let start = scratch.baseAddress, scratch.count >= 16 {
            base = start
            capacity = scratch.count
            ownsBase = false
        } else {
            capacity = 256
            base = HeapMemory.allocate(byteCount: capacity)
            ownsBase = true
        }
    }

    deinit { if ownsBase { HeapMemory.free(base) } }

    /// What `read` makes of what `write` returns and of the bytes it writes, which are built in
    /// stack memory: nothing is allocated unless the output is larger than `scratchCapacity` (at
    /// most 1,024 bytes are taken from the stack; more would be heap memory, which is what this
    /// avoids).
    @inlinable
    public static func withWritten<Written, R>(
        scratchCapacity: Int = 1024, _ write: (inout ByteWriter) -> Written,
        read: (Written, UnsafeRawBufferPointer) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(byteCount: scratchCapacity, alignment: 16) { scratch in
            var writer = ByteWriter(scratch: scratch)
            let written = write(&writer)
            return writer.withUnsafeBytes { read(written, $0) }
        }
    }

    /// The array `body` writes, built in stack memory (``withWritten(scratchCapacity:_:read:)``):
    /// the array is the only allocation.
    public static func array(scratchCapacity: Int = 1024, _ body: (inout ByteWriter) -> Void) -> [UInt8] {
        withWritten(scratchCapacity: scratchCapacity, body) { _, bytes in [UInt8](bytes) }
    }

    /// The UTF-8 text `body` writes, built in stack memory; text of up to 15 bytes needs no
    /// allocation at all.
    public static func string(scratchCapacity: Int = 64, _ body: (inout ByteWriter) -> Void) -> String {
        withWritten(scratchCapacity: scratchCapacity, body) { _, bytes in String(decoding: bytes, as: UTF8.self) }
    }

    /// The bytes written, as an array.
    public var bytes: [UInt8] { [UInt8](UnsafeRawBufferPointer(start: base, count: count)) }

    /// Calls `body` with the bytes written, in place; they stay there until the next write.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if capacity - count < extra { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let larger = HeapMemory.allocate(byteCount: newCapacity)
        larger.copyMemory(from: base, byteCount: count)
        if ownsBase { HeapMemory.free(base) }
        base = larger
        capacity = newCapacity
        ownsBase = true
    }

    /// Appends one byte.
    @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// Appends raw bytes.
    @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        Self.copy(bytes.count, from: source, to: base + count)
        count += bytes.count
    }

    /// Copies short runs (names, numbers, short texts: most of what is written) with two
    /// overlapping word moves, or byte by byte under four bytes, instead of a call to `memcpy`.
    @inline(__always)
    private static func copy(_ byteCount: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
        switch byteCount {
        case 8...16:
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: byteCount - 8, as: UInt64.self)
            destination.storeBytes(of: head, as: UInt64.self)
            destination.storeBytes(of: tail, toByteOffset: byteCount - 8, as: UInt64.self)
        case 4..<8:
            let head = source.loadUnaligned(as: UInt32.self)
            let tail = source.loadUnaligned(fromByteOffset: byteCount - 4, as: UInt32.self)
            destination.storeBytes(of: head, as: UInt32.self)
            destination.storeBytes(of: tail, toByteOffset: byteCount - 4, as: UInt32.self)
        case 1..<4:
            for offset in 0..<byteCount {
                destination.storeBytes(
                    of: source.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset, as: UInt8.self)
            }
        default:
            destination.copyMemory(from: source, byteCount: byteCount)
        }
    }

    /// Appends raw bytes.
    @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(UnsafeRawBufferPointer(bytes))
    }

    /// Appends static text.
    @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends an array's bytes.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends a string's UTF-8 bytes, unescaped.
    public mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Appends `{"name":` for an object's first member, else `,"name":`; the name needs no escaping.
    public mutating func appendMemberName(_ name: StaticString, first: Bool) {
        append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        append(UInt8(ascii: "\""))
        append(name)
        append(#"":"#)
    }

    /// Writes `bytes` over those written from `position` on, as a length written before what it
    /// measures is filled in; does nothing unless they fall within what is written.
    public mutating func overwrite(at position: Int, with bytes: UnsafeRawBufferPointer) {
        assert(position >= 0 && bytes.count <= count - position, "overwriting past what is written")
        guard let source = bytes.baseAddress, position >= 0, bytes.count <= count - position else { return }
        (base + position).copyMemory(from: source, byteCount: bytes.count)
    }

    /// Drops everything written from `position` on.
    public mutating func truncate(to position: Int) {
        count = min(count, max(0, position))
    }
}
