/// The names of the members a decoder reads from one kind of request object, such as the
/// legacy request's top level. A ``FieldReader`` finds them all in one pass over the object.
///
/// Cases are numbered from 0 in order (an `Int` enum's default raw values), and a set holds at
/// most ``FieldReader/maximumFields`` of them (a test checks every set).
protocol FieldName: RawRepresentable<Int>, Sendable {
    /// The member's name in JSON.
    var name: StaticString { get }
}

/// No named fields: an object read only by member names not known in advance (a string map).
enum NoFields: FieldName {
    init?(rawValue: Int) { nil }
    var rawValue: Int { switch self {} }
    var name: StaticString { switch self {} }
}

extension FieldName {
    /// The field whose name is `name`, if any: the cases are tried in order.
    static func named(_ name: ByteSpan) -> Self? {
        var raw = 0
        while let field = Self(rawValue: raw) {
            if ByteSpan(field.name) == name { return field }
            raw += 1
        }
        return nil
    }
}
