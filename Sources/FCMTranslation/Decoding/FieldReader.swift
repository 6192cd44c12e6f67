/// Reads typed fields of a JSON object, rejecting wrong types with the field's full path.
/// A field set to JSON `null` counts as absent.
struct FieldReader {
    let members: [String: JSONValue]
    /// The object's path, such as `message.notification`; empty at the top.
    let path: String

    init(_ members: [String: JSONValue], path: String) {
        self.members = members
        self.path = path
    }

    func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func invalid(_ key: String, _ problem: String) -> Rejection {
        Rejection(.invalidArgument, "\(path(key)): \(problem)")
    }

    func value(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    /// Rejects members other than `allowed`.
    func onlyKnown(_ allowed: Set<String>) throws(Rejection) {
        if let unknown = members.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw invalid(unknown, "unknown field")
        }
    }

    func string(_ key: String) throws(Rejection) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw invalid(key, "must be a string, not \(value.typeName)") }
        return text
    }

    func bool(_ key: String) throws(Rejection) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw invalid(key, "must be a boolean, not \(value.typeName)") }
        return flag
    }

    /// A whole number.
    func integer(_ key: String) throws(Rejection) -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let text) = value, let number = Int(text) else {
            let shown = if case .number(let text) = value { text } else { value.typeName }
            throw invalid(key, "must be a whole number, not \(shown)")
        }
        return number
    }

    func object(_ key: String) throws(Rejection) -> FieldReader? {
        guard let value = value(key) else { return nil }
        guard case .object(let members) = value else { throw invalid(key, "must be an object, not \(value.typeName)") }
        return FieldReader(members, path: path(key))
    }

    /// An object whose values must all be strings.
    func stringMap(_ key: String) throws(Rejection) -> [String: String]? {
        guard let object = try object(key) else { return nil }
        var map: [String: String] = [:]
        for name in object.members.keys.sorted() {
            guard let value = object.members[name] else { continue }
            guard case .string(let text) = value else { throw object.invalid(name, "must be a string, not \(value.typeName)") }
            map[name] = text
        }
        return map
    }

    /// A list of strings, given as a JSON array or as a string holding a JSON-encoded array.
    func stringList(_ key: String) throws(Rejection) -> [String]? {
        guard var value = value(key) else { return nil }
        if case .string(let text) = value {
            guard let parsed = try? JSONParser.parse(Array(text.utf8)) else {
                throw invalid(key, "must be an array of strings or a JSON-encoded array of strings")
            }
            value = parsed
        }
        guard case .array(let elements) = value else {
            throw invalid(key, "must be an array of strings, not \(value.typeName)")
        }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                throw invalid("\(key)[\(index)]", "must be a string, not \(element.typeName)")
            }
            strings.append(text)
        }
        return strings
    }
}
