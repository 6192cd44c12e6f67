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
