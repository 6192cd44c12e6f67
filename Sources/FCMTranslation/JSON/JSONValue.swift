/// A JSON value, as the bridge reads and writes it.
///
/// Numbers keep their literal text, so a number passes through the bridge exactly as it came
/// (`5` stays `5`, `1.50` stays `1.50`).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as its JSON literal text.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// An integer number.
    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// The object's members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The name of this value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Member lookup for objects; nil for other values.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}
