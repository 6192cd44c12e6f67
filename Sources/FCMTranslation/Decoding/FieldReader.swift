/// Reads typed fields of a JSON object in a ``JSONDocument``, rejecting wrong types with the
/// field's full path. A field set to JSON `null` counts as absent; of duplicate names the last wins.
struct FieldReader {
    let document: JSONDocument
    /// The object's node.
    let object: JSONNodeIndex
    /// The object's path, such as `message.notification`.
    let path: FieldPath

    func path(_ key: StaticString) -> String { path.describing(key.description) }

    func invalid(_ key: String, _ problem: String) -> Rejection {
        Rejection(.invalidArgument, "\(path.describing(key)): \(problem)")
    }

    func invalid(_ key: StaticString, _ problem: String) -> Rejection { invalid(key.description, problem) }

    /// The member's value, unless absent or null.
    func value(_ key: StaticString) -> JSONNodeIndex? {
        var found: JSONNodeIndex?
        for (name, value) in document.members(of: object) where document.name(name, equals: key) {
            found = value
        }
        guard let found, document[found].kind != .null else { return nil }
        return found
    }

    func has(_ key: StaticString) -> Bool { value(key) != nil }

    /// Rejects members other than `allowed`, naming the first unknown one in name order.
    func onlyKnown(_ allowed: [StaticString]) throws(Rejection) {
        var unknown: [String] = []
        for (name, _) in document.members(of: object) where !allowed.contains(where: { document.name(name, equals: $0) }) {
            unknown.append(document.text(name))
        }
        if let first = unknown.min(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            throw invalid(first, "unknown field")
        }
    }

    /// A string member's node, checked to be a string.
    func stringNode(_ key: StaticString) throws(Rejection) -> JSONNodeIndex? {
        guard let value = value(key) else { return nil }
        let node = document[value]
        guard node.kind == .string else { throw invalid(key, "must be a string, not \(node.typeName)") }
        return value
    }

    func string(_ key: StaticString) throws(Rejection) -> String? {
        try stringNode(key).map(document.text)
    }

    func bool(_ key: StaticString) throws(Rejection) -> Bool? {
        guard let value = value(key) else { return nil }
        switch document[value].kind {
        case .true: return true
        case .false: return false
        case let kind: throw invalid(key, "must be a boolean, not \(kind.typeName)")
        }
    }

    /// A whole number.
    func integer(_ key: StaticString) throws(Rejection) -> Int? {
        guard let value = value(key) else { return nil }
        let node = document[value]
        guard node.kind == .number, let number = Int(document.numberText(value)) else {
            throw invalid(key, "must be a whole number, not \(node.kind == .number ? document.numberText(value) : node.typeName)")
        }
        return number
    }

    func object(_ key: StaticString) throws(Rejection) -> FieldReader? {
        guard let value = value(key) else { return nil }
        let node = document[value]
        guard node.kind == .object else { throw invalid(key, "must be an object, not \(node.typeName)") }
        return FieldReader(document: document, object: value, path: path.appending(key))
    }

    /// An object whose values must all be strings; the first offender in name order is named.
    func stringMap(_ key: StaticString) throws(Rejection) -> FieldReader? {
        guard let map = try object(key) else { return nil }
        guard document.members(of: map.object).contains(where: { document[$0.value].kind != .string }) else { return map }
        // Of duplicate names only the last counts.
        if let offender = map.effectiveMembers().first(where: { document[$0.value].kind != .string }) {
            throw map.invalid(document.text(offender.key), "must be a string, not \(document[offender.value].typeName)")
        }
        return map
    }

    /// The members that count (the last of each name), in name order: O(n log n) for any input.
    func effectiveMembers() -> [(key: JSONNodeIndex, value: JSONNodeIndex)] {
        var members = SortedMembers<(key: JSONNodeIndex, value: JSONNodeIndex)>()
        for member in document.members(of: object) { members.add(document.name(member.key), member) }
        members.sort()
        return members.members.map(\.value)
    }

    /// The value of a string member of a map checked by ``stringMap(_:)``.
    func mapValue(_ key: StaticString) -> String? {
        value(key).map(document.text)
    }

    /// A list of strings, given as a JSON array or as a string holding a JSON-encoded array.
    func stringList(_ key: StaticString) throws(Rejection) -> [String]? {
        guard let value = value(key) else { return nil }
        var list = (document, value)
        if document[value].kind == .string {
            guard let parsed = try? JSONDocument(parsing: document.utf8(value)) else {
                throw invalid(key, "must be an array of strings or a JSON-encoded array of strings")
            }
            list = (parsed, parsed.root)
        }
        let (source, array) = list
        guard source[array].kind == .array else {
            throw invalid(key, "must be an array of strings, not \(source[array].typeName)")
        }
        var strings: [String] = []
        for (index, element) in source.elements(of: array).enumerated() {
            guard source[element].kind == .string else {
                throw invalid("\(key)[\(index)]", "must be a string, not \(source[element].typeName)")
            }
            strings.append(source.text(element))
        }
        return strings
    }
}
