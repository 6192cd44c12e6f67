/// A project id from a request's path: Google's letters (lowercase letters, digits, `-`, and `.`
/// and `:` of domain-scoped ids), so that it can be written into answers as it is.
struct ProjectID: Sendable, Hashable {
    /// The longest id accepted (Google's are at most 30 characters, domain-scoped ones longer).
    static let maximumLength = 100

    let text: String

    /// The id, or Google's 403 for a project no account can have.
    init(_ text: String) throws(GoogleError) {
        guard (1...Self.maximumLength).contains(text.utf8.count),
            text.utf8.allSatisfy({ Self.isAllowed($0) })
        else {
            throw GoogleError.permissionDenied(
                "Permission denied on resource project \(text.prefix(Self.maximumLength)).")
        }
        self.text = text
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"),
            UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default: false
        }
    }
}
