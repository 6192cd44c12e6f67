/// The memory of a ``JSONDocument``, in one allocation: room for its nodes, then its own copy of
/// the bytes, a few NULs, and room for the unescaped text of member names. Never written once
/// built, so pointers into it stay valid, and read-only, as long as the document lives.
final class JSONStorage: ManagedBuffer<JSONStorage.Layout, JSONNode> {
    /// Sizes fixed when the storage is made.
    struct Layout {
        /// The document's length; bytes past it hold NULs, then unescaped names.
        let documentCount: Int
        /// How many nodes fit before the bytes.
        let nodeCapacity: Int
        /// How many bytes of unescaped names fit after the NULs.
        let nameCapacity: Int

        /// Room for any document of `documentCount` bytes. A document of n bytes has at most
        /// n / 2 + 1 nodes: every value but the first takes a byte and a separator (`[0,0]` has
        /// three in five bytes). Unescaping never makes a name longer, so the document's size
        /// again holds every unescaped name. The nodes take 8 bytes per byte of the document.
        static func roomForAny(documentCount: Int) -> Layout {
            Layout(documentCount: documentCount, nodeCapacity: documentCount / 2 + 1, nameCapacity: documentCount)
        }

        /// Room for n / 16 + 16 nodes and no unescaped names: the bridge's requests of up to
        /// about 400 bytes (one node per 10 to 11 bytes, names without escapes), small enough
        /// that one of about 300 bytes takes an allocation from `malloc`'s per-thread cache (at
        /// most 1,032 bytes) instead of its slower general path. A document it cannot hold
        /// (denser, or escaped names) is parsed again with ``roomForAny(documentCount:)``.
        static func compact(documentCount: Int) -> Layout {
            Layout(documentCount: documentCount, nodeCapacity: documentCount / 16 + 16, nameCapacity: 0)
        }
    }

    /// Uninitialized storage of `layout`'s sizes.
    static func make(_ layout: Layout) -> JSONStorage {
        let byteCapacity = layout.documentCount + JSONTapeBuilder.sentinelCount + layout.nameCapacity
        let stride = MemoryLayout<JSONNode>.stride
        let buffer = create(minimumCapacity: layout.nodeCapacity + (byteCapacity + stride - 1) / stride) { _ in layout }
        let storage = unsafeDowncast(buffer, to: JSONStorage.self)
        storage.base.bindMemory(to: UInt8.self, capacity: byteCapacity)
        return storage
    }

    /// Read through pointers, which need no exclusivity checks.
    private var layout: Layout { withUnsafeMutablePointerToHeader { $0.pointee } }

    /// The document's length in bytes.
    var documentCount: Int { layout.documentCount }
    /// How many nodes fit.
    var nodeCapacity: Int { layout.nodeCapacity }
    /// How many bytes of unescaped names fit.
    var nameCapacity: Int { layout.nameCapacity }
    /// The nodes.
    var nodes: UnsafeMutablePointer<JSONNode> { withUnsafeMutablePointerToElements { $0 } }
    /// The document's bytes, then a few NULs, then the unescaped member names.
    var base: UnsafeMutableRawPointer { UnsafeMutableRawPointer(nodes + nodeCapacity) }
}

/// A run of bytes that a ``JSONDocument`` (or static text) keeps alive: a member name or a
/// string's raw text, compared and copied without ARC or allocation.
package struct ByteSpan {
    let start: UnsafeRawPointer
    let count: Int
    /// Whether the bytes can stand between quotes in JSON as they are: true of a string's raw
    /// text and of names without quotes, backslashes or control characters (all the static
    /// ones); false of an unescaped member name that has any of them.
    let isPlain: Bool

    package init(start: UnsafeRawPointer, count: Int, isPlain: Bool) {
        self.start = start
        self.count = count
        self.isPlain = isPlain
    }

    /// Static text, which must need no escaping in JSON.
    package init(_ text: StaticString) {
        self.init(start: UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount, isPlain: true)
    }

    var buffer: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// Whether the bytes start with `prefix`.
    func hasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        return self.count >= count && ByteSpan(start: start, count: count, isPlain: isPlain) == ByteSpan(prefix)
    }

    /// Compared eight bytes at a time: names are short, so this beats a call to `memcmp`.
    package static func == (left: ByteSpan, right: ByteSpan) -> Bool {
        guard left.count == right.count else { return false }
        var offset = 0
        while left.count - offset >= 8 {
            if left.start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != right.start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        while offset < left.count {
            if left.start.load(fromByteOffset: offset, as: UInt8.self)
                != right.start.load(fromByteOffset: offset, as: UInt8.self)
            {
                return false
            }
            offset += 1
        }
        return true
    }

    /// UTF-8 byte order, which is Unicode scalar order. Eight bytes at a time, read as
    /// big-endian words so that word order is byte order: names are short, so this beats a call
    /// to `memcmp`.
    static func < (left: ByteSpan, right: ByteSpan) -> Bool {
        let common = min(left.count, right.count)
        var offset = 0
        while common - offset >= 8 {
            let leftWord = UInt64(bigEndian: left.start.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let rightWord = UInt64(bigEndian: right.start.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            if leftWord != rightWord { return leftWord < rightWord }
            offset += 8
        }
        while offset < common {
            let leftByte = left.start.load(fromByteOffset: offset, as: UInt8.self)
            let rightByte = right.start.load(fromByteOffset: offset, as: UInt8.self)
            if leftByte != rightByte { return leftByte < rightByte }
            offset += 1
        }
        return left.count < right.count
    }
}
