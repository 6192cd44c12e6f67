/// A parsed JSON document that keeps its bytes: a flat list of nodes (a "tape") that point into
/// them, so reading a field costs a byte comparison, not a dictionary of `String`s.
///
/// Parsing is as strict as ``JSONParser`` (RFC 8259, valid UTF-8, no lone surrogates, a nesting
/// limit), so everything a node points at is known to be valid and can be copied out verbatim.
/// Nothing is decoded until asked for: strings become `String`s only when kept. Member names
/// with escapes are unescaped once while parsing, so every name is its unescaped bytes.
public struct JSONDocument: Sendable {
    /// Sendable as it is: written only by the ``JSONTapeBuilder`` that made it, before any
    /// document holds it. (`ManagedBuffer`'s `Sendable` conformance is unavailable, so its
    /// subclass cannot declare one.)
    nonisolated(unsafe) private let storage: JSONStorage

    /// Parses one JSON document.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        let built = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) -> JSONDocument in try JSONDocument(parsing: raw) }
        }
        self = try built.get()
    }

    /// Parses one JSON document from bytes it copies.
    public init(parsing bytes: UnsafeRawBufferPointer) throws(JSONParseError) {
        guard bytes.count < (Int(Int32.max) - JSONTapeBuilder.sentinelCount) / 2 else {
            throw JSONParseError(offset: 0, reason: "document too large")
        }
        // Most documents fit compact storage; the rest are parsed again with room for any.
        if let storage = try JSONTapeBuilder(copying: bytes, layout: .compact(documentCount: bytes.count)).build() {
            self.storage = storage
        } else if let storage = try JSONTapeBuilder(copying: bytes, layout: .roomForAny(documentCount: bytes.count))
            .build()
        {
            self.storage = storage
        } else {
            throw JSONParseError(offset: 0, reason: "more values than the document's size allows")
        }
    }

    /// The document's length in bytes.
    var byteCount: Int { storage.documentCount }

    /// The top-level value.
    var root: JSONNodeIndex { JSONNodeIndex(0) }

    subscript(index: JSONNodeIndex) -> JSONNode { storage.nodes[Int(index.rawValue)] }

    /// The members of the object at `object`, as (key, value) pairs in document order.
    func members(of object: JSONNodeIndex) -> JSONMembers {
        JSONMembers(nodes: storage.nodes, position: object.rawValue + 1, end: self[object].next)
    }

    /// The elements of the array at `array`, in order.
    func elements(of array: JSONNodeIndex) -> JSONElements {
        JSONElements(nodes: storage.nodes, position: array.rawValue + 1, end: self[array].next)
    }

    /// The bytes a node spans: a string's raw text (a name's unescaped text), a number's literal.
    /// Valid while the document lives.
    func span(_ index: JSONNodeIndex) -> ByteSpan {
        let node = self[index]
        return ByteSpan(
            start: storage.base + Int(node.start), count: Int(node.end - node.start), isPlain: !node.nameNeedsEscaping)
    }

    /// A member name's text, unescaped (names always are). Valid while the document lives.
    func name(_ key: JSONNodeIndex) -> ByteSpan { span(key) }

    /// Whether the member name `key` is exactly `name`.
    func name(_ key: JSONNodeIndex, equals name: StaticString) -> Bool {
        span(key) == ByteSpan(name)
    }

    /// Calls `body` with the UTF-8 bytes of a string node, unescaped: the document's own bytes
    /// unless the string has escapes, an unescaped copy if it has.
    func withUTF8<R>(_ index: JSONNodeIndex, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let raw = span(index).buffer
        guard self[index].hasEscapes else { return body(raw) }
        return JSONEscapes.unescape(raw).withUnsafeBufferPointer(body)
    }

    /// The text of a string node, unescaped.
    func text(_ index: JSONNodeIndex) -> String {
        withUTF8(index) { String(decoding: $0, as: UTF8.self) }
    }

    /// The whole number a string node's text spells as `Int(_: String)` reads it, if any.
    func integer(_ index: JSONNodeIndex) -> Int? {
        withUTF8(index) { DecimalInteger.parse($0) }
    }

    /// Whether the string node's text, unescaped, starts with `prefix`.
    func string(_ index: JSONNodeIndex, hasPrefix prefix: StaticString) -> Bool {
        guard self[index].hasEscapes else { return span(index).hasPrefix(prefix) }
        return withUTF8(index) { $0.starts(with: ByteSpan(prefix).buffer) }
    }

    /// Whether the string node's text, unescaped, is exactly `text`.
    func string(_ index: JSONNodeIndex, equals text: StaticString) -> Bool {
        guard self[index].hasEscapes else { return span(index) == ByteSpan(text) }
        return withUTF8(index) { $0.elementsEqual(ByteSpan(text).buffer) }
    }

    /// The UTF-8 bytes of a string node, unescaped.
    func utf8(_ index: JSONNodeIndex) -> [UInt8] {
        withUTF8(index) { Array($0) }
    }

    /// The literal text of a number node.
    func numberText(_ index: JSONNodeIndex) -> String {
        String(decoding: span(index).buffer, as: UTF8.self)
    }

    /// The value as a ``JSONValue`` tree, for the rare places that need one.
    func value(_ index: JSONNodeIndex) -> JSONValue {
        let node = self[index]
        switch node.kind {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(numberText(index))
        case .string: return .string(text(index))
        case .array: return .array(elements(of: index).map { value($0) })
        case .object:
            var members: [String: JSONValue] = [:]
            for (key, member) in self.members(of: index) { members[text(key)] = value(member) }
            return .object(members)
        }
    }
}

/// The position of a node in a ``JSONDocument``.
struct JSONNodeIndex: Sendable, Hashable {
    var rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }
}

/// One value of a ``JSONDocument``.
struct JSONNode: Sendable, Hashable {
    enum Kind: UInt8, Sendable {
        case null, `false`, `true`, number, string, array, object
    }

    var kind: Kind
    /// A string value with at least one escape: it must be unescaped before use.
    var hasEscapes = false
    /// A member name whose unescaped text holds a quote, a backslash or a control character:
    /// it must be escaped again when written.
    var nameNeedsEscaping = false
    /// Strings: the first byte of their text; other values: their first byte.
    var start: Int32
    /// Strings: one past their text; other values: one past their last byte.
    var end: Int32
    /// The index of the node after this value and everything inside it.
    var next: Int32

    /// The value's JSON type, for error messages (as ``JSONValue/typeName``).
    var typeName: String { kind.typeName }
}

extension JSONNode.Kind {
    /// The JSON type's name, for error messages (as ``JSONValue/typeName``).
    var typeName: String {
        switch self {
        case .null: "null"
        case .false, .true: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An object's members in document order: (key node, value node). Valid while its document lives.
struct JSONMembers: Sequence, IteratorProtocol {
    let nodes: UnsafeMutablePointer<JSONNode>
    var position: Int32
    let end: Int32

    mutating func next() -> (key: JSONNodeIndex, value: JSONNodeIndex)? {
        guard position < end else { return nil }
        let key = position
        position = nodes[Int(key + 1)].next
        return (JSONNodeIndex(key), JSONNodeIndex(key + 1))
    }
}

/// An array's elements in order. Valid while its document lives.
struct JSONElements: Sequence, IteratorProtocol {
    let nodes: UnsafeMutablePointer<JSONNode>
    var position: Int32
    let end: Int32

    mutating func next() -> JSONNodeIndex? {
        guard position < end else { return nil }
        let element = position
        position = nodes[Int(element)].next
        return JSONNodeIndex(element)
    }
}
