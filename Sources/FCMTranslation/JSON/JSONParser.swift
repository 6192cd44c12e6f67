/// Why bytes are not JSON.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Byte offset where parsing stopped.
    public let offset: Int
    /// What was wrong there.
    public let reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 JSON parser into ``JSONValue`` trees, for the places that want a whole tree
/// (configuration-sized documents, tests). The hot paths read a ``JSONDocument`` instead; both
/// share one parser.
///
/// It rejects invalid UTF-8, unescaped control characters, lone surrogates, trailing bytes and
/// nesting deeper than ``maximumDepth``, so no input can exhaust the stack.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 100

    /// Parses one JSON document.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let document = try JSONDocument(parsing: Array(bytes))
        return document.value(document.root)
    }
}
