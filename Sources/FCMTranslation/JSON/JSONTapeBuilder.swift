/// Builds a ``JSONDocument``'s nodes in one strict pass over the bytes (RFC 8259): invalid UTF-8,
/// unescaped control characters, lone surrogates, trailing bytes and nesting deeper than
/// ``JSONParser/maximumDepth`` are errors, so no input can exhaust the stack.
struct JSONTapeBuilder: ~Copyable {
    /// NUL bytes after the document's copy, so that a string's plain text can be scanned a word
    /// at a time without a bounds check: a NUL is never plain.
    static let sentinelCount = 8

    /// Where the document is built: nodes, bytes, NULs, unescaped names.
    private let storage: JSONStorage
    /// The document's own copy of the bytes, then ``sentinelCount`` NULs, then the layout's room
    /// for unescaped names.
    private let base: UnsafeMutableRawPointer
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    /// Where the next unescaped name goes.
    private var scratchEnd: Int
    private let nodes: UnsafeMutablePointer<JSONNode>
    private var nodeCount = 0
    private let nodeCapacity: Int
    /// Where unescaped names must end.
    private let scratchLimit: Int
    /// Whether the storage proved too small for the document.
    private var isOutOfRoom = false

    init(copying input: UnsafeRawBufferPointer, layout: JSONStorage.Layout) {
        storage = JSONStorage.make(layout)
        base = storage.base
        nodes = storage.nodes
        nodeCapacity = storage.nodeCapacity
        scratchLimit = input.count + Self.sentinelCount + storage.nameCapacity
        if let source = input.baseAddress { base.copyMemory(from: source, byteCount: input.count) }
        (base + input.count).initializeMemory(as: UInt8.self, repeating: 0, count: Self.sentinelCount)
        bytes = UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: input.count)
        scratchEnd = input.count + Self.sentinelCount
    }

    /// Parses the document; its storage on success, or nil when the storage is too small for it
    /// (only a compact layout can be).
    consuming func build() throws(JSONParseError) -> JSONStorage? {
        do throws(JSONParseError) {
            skipWhitespace()
            try value(depth: 0)
            skipWhitespace()
            guard index == bytes.count else { throw error("unexpected bytes after the JSON value") }
            return storage
        } catch {
            if isOutOfRoom { return nil }
            throw error
        }
    }

    /// Appends a node; returns its index.
    @inline(__always)
    private mutating func append(_ node: JSONNode) throws(JSONParseError) -> Int {
        guard nodeCount < nodeCapacity else { throw outOfRoom() }
        (nodes + nodeCount).initialize(to: node)
        nodeCount += 1
        return nodeCount - 1
    }

    /// Copies the unescaped text of the string at `start..<end` past the document; returns where it went.
    private mutating func unescapeName(start: Int, end: Int) throws(JSONParseError) -> Range<Int> {
        let text = JSONEscapes.unescape(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        guard scratchLimit - scratchEnd >= text.count else { throw outOfRoom() }
        let destination = scratchEnd
        text.withUnsafeBytes { source in
            if let source = source.baseAddress { (base + destination).copyMemory(from: source, byteCount: text.count) }
        }
        scratchEnd += text.count
        return destination..<scratchEnd
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    private mutating func outOfRoom() -> JSONParseError {
        isOutOfRoom = true
        return error("more values than the document's storage holds")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Appends a leaf node spanning `start..<end`.
    private mutating func leaf(_ kind: JSONNode.Kind, _ start: Int, _ end: Int, hasEscapes: Bool = false)
        throws(JSONParseError)
    {
        let next = Int32(nodeCount + 1)
        _ = try append(JSONNode(kind: kind, hasEscapes: hasEscapes, start: Int32(start), end: Int32(end), next: next))
    }

    private mutating func value(depth: Int) throws(JSONParseError) {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): try container(.object, depth: depth + 1)
        case UInt8(ascii: "["): try container(.array, depth: depth + 1)
        case UInt8(ascii: "\""): try stringValue()
        case UInt8(ascii: "t"): try literal("true", .true)
        case UInt8(ascii: "f"): try literal("false", .false)
        case UInt8(ascii: "n"): try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONNode.Kind) throws(JSONParseError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("invalid literal") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("invalid literal")
        }
        index += count
        try leaf(kind, index - count, index)
    }

    /// An object or an array: its node first, then its members, then the node's end is patched.
    private mutating func container(_ kind: JSONNode.Kind, depth: Int) throws(JSONParseError) {
        guard depth <= JSONParser.maximumDepth else { throw error("nested deeper than \(JSONParser.maximumDepth)") }
        let isObject = kind == .object
        let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        let slot = try append(JSONNode(kind: kind, start: Int32(index), end: 0, next: 0))
        index += 1
        skipWhitespace()
        if current == closing {
            index += 1
        } else {
            while true {
                skipWhitespace()
                if isObject {
                    guard current == UInt8(ascii: "\"") else { throw error("expected a member name") }
                    try string(isName: true)
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
                    index += 1
                    skipWhitespace()
                }
                try value(depth: depth)
                skipWhitespace()
                guard let byte = current else { throw error(isObject ? "expected ',' or '}'" : "expected ',' or ']'") }
                if byte == UInt8(ascii: ",") {
                    index += 1
                } else if byte == closing {
                    index += 1
                    break
                } else {
                    throw error(isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
        }
        nodes[slot].end = Int32(index)
        nodes[slot].next = Int32(nodeCount)
    }

    private mutating func number() throws(JSONParseError) {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else { throw error("invalid number") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, Self.isDigit(byte) else { throw error("invalid number") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, Self.isDigit(byte) else { throw error("invalid number") }
            skipDigits()
        }
        try leaf(.number, start, index)
    }

    private mutating func skipDigits() {
        while let byte = current, Self.isDigit(byte) { index += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// A string value: a call, while names (half of all strings) are scanned inline in
    /// ``container(_:depth:)``, which saved more than inlining both or neither.
    @inline(never)
    private mutating func stringValue() throws(JSONParseError) { try string(isName: false) }

    /// A string: checks escapes and UTF-8 without decoding anything, except that a member name
    /// with escapes is unescaped once, so that names are always unescaped text.
    @inline(__always)
    private mutating func string(isName: Bool) throws(JSONParseError) {
        let start = index + 1
        var position = start
        var hasEscapes = false
        let count = bytes.count
        while position < count {
            // The common case first: printable ASCII other than the quote and the backslash.
            // The NULs after the document end the scan at its end at the latest.
            position += JSONScan.plainPrefix(terminated: base + position, allowingNonASCII: false)
            guard position < count else { break }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                if isName && hasEscapes {
                    let text = try unescapeName(start: start, end: position)
                    let unescaped = UnsafeRawBufferPointer(start: base + text.lowerBound, count: text.count)
                    let needsEscaping = JSONScan.plainPrefix(unescaped, allowingNonASCII: true) < text.count
                    _ = try append(
                        JSONNode(
                            kind: .string, nameNeedsEscaping: needsEscaping,
                            start: Int32(text.lowerBound), end: Int32(text.upperBound), next: Int32(nodeCount + 1)
                        ))
                } else {
                    try leaf(.string, start, position, hasEscapes: hasEscapes)
                }
                index = position + 1
                return
            } else if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index = position + 1
                try escape()
                position = index
            } else if byte < 0x20 {
                index = position
                throw error("unescaped control character in string")
            } else {
                guard let length = UTF8Validation.sequenceLength(in: bytes, at: position) else {
                    index = position
                    throw error("invalid UTF-8 in string")
                }
                position += length
            }
        }
        index = position
        throw error("unterminated string")
    }

    private mutating func escape() throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            guard let unit = JSONEscapes.hex4(bytes, at: index) else { throw error("invalid \\u escape") }
            index += 4
            if (0xD800..<0xDC00).contains(unit) {
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"),
                    let low = JSONEscapes.hex4(bytes, at: index + 2), (0xDC00..<0xE000).contains(low)
                else {
                    throw error("lone surrogate in string")
                }
                index += 6
            } else if (0xDC00..<0xE000).contains(unit) {
                throw error("lone surrogate in string")
            }
        default:
            throw error("invalid escape")
        }
    }
}
