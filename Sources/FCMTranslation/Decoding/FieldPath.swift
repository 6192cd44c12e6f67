/// Where a field sits in a request, such as `message.apns.headers`: kept as pointers to the
/// names' static text and joined only when an error names it, so reading a valid request builds
/// no paths.
struct FieldPath: Sendable, CustomStringConvertible {
    /// The deepest path kept; deeper names are not recorded.
    static let maximumDepth = 4
    // StaticString text is immortal and NUL-terminated.
    private nonisolated(unsafe) var names:
        (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) =
            (nil, nil, nil, nil)
    private var depth = 0

    /// The top of the request.
    static let root = FieldPath()

    /// The path of the member `name` of the object at this path.
    func appending(_ name: StaticString) -> FieldPath {
        var path = self
        switch depth {
        case 0: path.names.0 = name.utf8Start
        case 1: path.names.1 = name.utf8Start
        case 2: path.names.2 = name.utf8Start
        default: path.names.3 = name.utf8Start
        }
        path.depth = min(depth + 1, Self.maximumDepth)
        return path
    }

    var description: String {
        [names.0, names.1, names.2, names.3].prefix(depth).compactMap { $0.map { String(cString: $0) } }.joined(
            separator: ".")
    }

    /// The text of the member `name` of the object at this path.
    func describing(_ name: String) -> String { depth == 0 ? name : "\(description).\(name)" }
}
