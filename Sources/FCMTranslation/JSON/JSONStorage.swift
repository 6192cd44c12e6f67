/// The memory of a ``JSONDocument``: its own copy of the bytes, followed by the unescaped text
/// of member names, and the nodes. Read-only once built (every property is a `let`, so reads
/// need no exclusivity checks), and pointers into it stay valid as long as the document lives.
final class JSONStorage: Sendable {
    /// The document's bytes, then a few NULs, then the unescaped member names.
    nonisolated(unsafe) let base: UnsafeMutableRawPointer
    /// The document's length; bytes past it hold unescaped names.
    let documentCount: Int
    nonisolated(unsafe) let nodes: UnsafeMutablePointer<JSONNode>

    /// Takes ownership of what a ``JSONTapeBuilder`` built.
    init(base: UnsafeMutableRawPointer, documentCount: Int, nodes: UnsafeMutablePointer<JSONNode>) {
        self.base = base
        self.documentCount = documentCount
        self.nodes = nodes
    }

    deinit {
        HeapMemory.free(base)
        HeapMemory.free(nodes)
    }
}

/// A run of bytes that a ``JSONDocument`` (or static text) keeps alive: a member name or a
/// string's raw text, compared and copied without ARC or allocation.
struct ByteSpan {
    let start: UnsafeRawPointer
    let count: Int
    /// Whether the bytes can stand between quotes in JSON as they are: true of a string's raw
    /// text and of names without quotes, backslashes or control characters (all the static
    /// ones); false of an unescaped member name that has any of them.
    let isPlain: Bool

    init(start: UnsafeRawPointer, count: Int, isPlain: Bool) {
        self.start = start
        self.count = count
        self.isPlain = isPlain
    }

    /// Static text, which must need no escaping in JSON.
    init(_ text: StaticString) {
        self.init(start: UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount, isPlain: true)
    }

    var buffer: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// Compared eight bytes at a time: names are short, so this beats a call to `memcmp`.
    static func == (left: ByteSpan, right: ByteSpan) -> Bool {
        guard left.count == right.count else { return false }
        var offset = 0
        while left.count - offset >= 8 {
            if left.start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != right.start.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < left.count {
            if left.start.load(fromByteOffset: offset, as: UInt8.self) != right.start.load(fromByteOffset: offset, as: UInt8.self) {
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
