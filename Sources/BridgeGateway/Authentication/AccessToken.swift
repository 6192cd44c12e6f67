/// An access token and its lifetime, answered as Google's token endpoint answers.
public struct AccessToken: Sendable, Encodable {
    /// The token, for `Authorization: Bearer`.
    public var token: String
    /// Seconds it stays valid.
    public var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case token = "access_token"
        case expiresIn = "expires_in"
        case tokenType = "token_type"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(expiresIn, forKey: .expiresIn)
        try container.encode("Bearer", forKey: .tokenType)
    }
}
