/// Why the token endpoint refuses a grant: RFC 6749's error codes, as Google's endpoint answers
/// them (400, `{"error": ..., "error_description": ...}`).
public enum GrantRefusal: Error, Sendable, Hashable {
    case invalidRequest(String)
    case invalidGrant(String)
    case invalidScope(String)
    case unsupportedGrantType(String)

    /// RFC 6749's `error`.
    public var error: String {
        switch self {
        case .invalidRequest: "invalid_request"
        case .invalidGrant: "invalid_grant"
        case .invalidScope: "invalid_scope"
        case .unsupportedGrantType: "unsupported_grant_type"
        }
    }

    /// Why, for a person.
    public var description: String {
        switch self {
        case .invalidRequest(let text), .invalidGrant(let text), .invalidScope(let text),
            .unsupportedGrantType(let text):
            text
        }
    }
}
