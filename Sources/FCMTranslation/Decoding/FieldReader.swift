/// Reads typed fields of a JSON object in a ``JSONDocument``, rejecting wrong types with the
/// field's full path. A field set to JSON `null` counts as absent; of duplicate names the last wins.
///
/// The fields of `Field` are found in one pass over the object's members when the reader is
/// made, so reading one is an index, not a search; names not known in advance (string maps)
/// are searched for with ``member(named:)``.
struct FieldReader<Field: FieldName>: ~Copyable {
    /// The most cases a ``FieldName`` set may have.
    static var maximumFields: Int { 16 }

    let document: JSONDocument
    /// The object's node.
    let object: JSONNodeIndex
    /// The object's path, such as `message.notification`.
    let path: FieldPath
    /// Per field by raw value, the node of its last value, or -1 when absent.
    private var values = InlineArray<16, Int32>(repeating: -1)
    /// Whether the object has a member that is none of `Field`'s.
    private(set) var hasUnknown = false

    @inline(__always)
    init(document: JSONDocument, object: JSONNodeIndex, path: FieldPath) {
        self.document = document
        self.object = object
        self.path = path
        for (name, value) in document.members(of: object) {
            if let field = Field.named(document.name(name)), values.indices.contains(field.rawValue) {
                values[field.rawValue] = value.rawValue
            } else {
                hasUnknown = true
            }
        }
    }

    func path(_ field: Field) -> String { path.describing(field.name.description) }

    func invalid(_ key: String, _ problem: String) -> Rejection {
        Rejection(.invalidArgument, "\(path.describing(key)): \(problem)")
    }

    func invalid(_ field: Field, _ problem: String) -> Rejection { invalid(field.name.description, problem) }

    /// The field's value, unless absent or null.
    func value(_ field: Field) -> JSONNodeIndex? {
        guard values.indices.contains(field.rawValue) else { return nil }
        let found = values[field.rawValue]
        guard found >= 0, document[JSONNodeIndex(found)].kind != .null else { return nil }
        return JSONNodeIndex(found)
    }

    /// The value of the member named `key`, unless absent or null: a search, for names that are
    /// not fields (keys of a string map).
    func member(named key: StaticString) -> JSONNodeIndex? {
        var found: JSONNodeIndex?
        for (name, value) in document.members(of: object) where document.name(name, equals: key) {
            found = value
        }
        guard let found, document[found].kind != .null else { return nil }
        return found
    }

    func has(_ field: Field) -> Bool { value(field) != nil }

    /// Rejects members that are none of `Field`'s, naming the first in name order.
    func onlyKnown() throws(Rejection) {
        guard hasUnknown else { return }
        var first: ByteSpan?
        for (key, _) in document.members(of: object) {
            let name = document.name(key)
            if Field.named(name) == nil, first.map({ name < $0 }) ?? true { first = name }
        }
        if let first { throw invalid(String(decoding: first.buffer, as: UTF8.self), "unknown field") }
    }

    /// A string member's node, checked to be a string.
    func stringNode(_ field: Field) throws(Rejection) -> JSONNodeIndex? {
        guard let value = value(field) else { return nil }
        let node = document[value]
        guard node.kind == .string else { throw invalid(field, "must be a string, not \(node.typeName)") }
        return value
    }

    func string(_ field: Field) throws(Rejection) -> String? {
        try stringNode(field).map(document.text)
    }

    func bool(_ field: Field) throws(Rejection) -> Bool? {
        guard let value = value(field) else { return nil }
        switch document[value].kind {
        case .true: return true
        case .false: return false
        case let kind: throw invalid(field, "must be a boolean, not \(kind.typeName)")
        }
    }

    /// A whole number.
    func integer(_ field: Field) throws(Rejection) -> Int? {
        guard let value = value(field) else { return nil }
        let node = document[value]
        guard node.kind == .number, let number = DecimalInteger.parse(document.span(value).buffer) else {
            throw invalid(
                field,
                "must be a whole number, not \(node.kind == .number ? document.numberText(value) : node.typeName)")
        }
        return number
    }

    /// An object member, read for the fields of `Inner`.
    @inline(__always)
    func object<Inner>(_ field: Field, as _: Inner.Type) throws(Rejection) -> FieldReader<Inner>? {
        guard let value = value(field) else { return nil }
        let node = document[value]
        guard node.kind == .object else { throw invalid(field, "must be an object, not \(node.typeName)") }
        return FieldReader<Inner>(document: document, object: value, path: path.appending(field.name))
    }

    /// An object whose values must all be strings; the first offender in name order is named.
    func stringMap(_ field: Field) throws(Rejection) -> FieldReader<NoFields>? {
        guard let map = try object(field, as: NoFields.self) else { return nil }
        guard document.members(of: map.object).contains(where: { document[$0.value].kind != .string }) else {
            return map
        }
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
        member(named: key).map(document.text)
    }

    /// A list of strings, given as a JSON array or as a string holding a JSON-encoded array.
    func stringList(_ field: Field) throws(Rejection) -> [String]? {
        guard let value = value(field) else { return nil }
        var list = (document, value)
        if document[value].kind == .string {
            guard let parsed = try? JSONDocument(parsing: document.utf8(value)) else {
                throw invalid(field, "must be an array of strings or a JSON-encoded array of strings")
            }
            list = (parsed, parsed.root)
        }
        let (source, array) = list
        guard source[array].kind == .array else {
            throw invalid(field, "must be an array of strings, not \(source[array].typeName)")
        }
        var strings: [String] = []
        for (index, element) in source.elements(of: array).enumerated() {
            guard source[element].kind == .string else {
                throw invalid("\(field.name)[\(index)]", "must be a string, not \(source[element].typeName)")
            }
            strings.append(source.text(element))
        }
        return strings
    }
}
