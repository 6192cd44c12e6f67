/// FCM's rule for a topic's name: 1 to 900 of `[a-zA-Z0-9-_.~%]`, given bare or with a
/// `/topics/` prefix, which is dropped.
public enum TopicName {
    /// The longest name.
    public static let maxLength = 900

    /// The name without its `/topics/` prefix, or why it is not one (the caller names the field).
    public static func validate(_ given: String) -> Result<String, TopicNameError> {
        let name = given.hasPrefix("/topics/") ? String(given.utf8.dropFirst(8)) ?? "" : given
        guard !name.isEmpty else { return .failure(.empty) }
        guard name.utf8.count <= maxLength else { return .failure(.tooLong(name.utf8.count)) }
        guard let bad = name.unicodeScalars.first(where: { !isAllowed($0) }) else { return .success(name) }
        return .failure(.character(bad))
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "~", "%": true
        default: false
        }
    }
}

/// Why a string is not a topic name.
public enum TopicNameError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLong(Int)
    case character(Unicode.Scalar)

    public var description: String {
        switch self {
        case .empty: "a topic name is 1 to \(TopicName.maxLength) characters; this one is empty"
        case .tooLong(let count):
            "a topic name is 1 to \(TopicName.maxLength) characters; this one has \(count)"
        case .character(let scalar):
            "a topic name holds only letters, digits and -_.~%; this one holds \"\(scalar.escaped(asASCII: true))\""
        }
    }
}
