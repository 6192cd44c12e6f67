import Foundation
import JWTKit

/// The claims of a service account's assertion (RFC 7523, as Google's client libraries sign it):
/// checked by ``TokenAuthority``, not by jwt-kit's `verify`, so that every refusal says why.
struct AssertionClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim?
    var exp: ExpirationClaim?
    var iat: IssuedAtClaim?
    var nbf: NotBeforeClaim?
    var scope: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The claims of an access token the gateway issued: the account and its scopes, for an hour.
struct AccessClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var scope: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// A token's header fields that choose the key: read before the signature is checked, and
/// checked against what the key is for (no `none`, no HMAC with an RSA public key).
struct TokenHeader: Decodable {
    var alg: String?
    var kid: String?

    /// The header of a compact JWT, or nil when it has none that decodes.
    init?(of token: String) {
        guard let end = token.firstIndex(of: "."), let data = Self.base64URLDecoded(token[..<end]),
            let header = try? JSONDecoder().decode(TokenHeader.self, from: data)
        else { return nil }
        self = header
    }

    private static func base64URLDecoded(_ text: Substring) -> Data? {
        guard text.utf8.count <= 4096 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
