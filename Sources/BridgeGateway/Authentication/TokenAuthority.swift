import Foundation
import JWTKit

/// Google's OAuth 2.0 service-account flow, at home: trades a service account's signed
/// assertion (the JWT bearer grant, RFC 7523) for a short-lived access token, and checks the
/// access token on each API request. Access tokens are JWTs signed with the gateway's HMAC
/// secret, so every gateway sharing the secret accepts them and none keeps a session.
public struct TokenAuthority: Sendable {
    /// The scopes that allow sending: FCM's own and Cloud Platform's.
    public static let sendingScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]
    /// How long an access token lives, as Google's do.
    public static let accessTokenLifetime: TimeInterval = 3600
    /// The longest assertion Google accepts: an hour from `iat` to `exp`.
    static let longestAssertion: TimeInterval = 3600
    /// Clock skew allowed between an app server and the gateway.
    static let allowedSkew: TimeInterval = 60
    /// The issuer and key id of the gateway's access tokens.
    static let issuer = "fcm-bridge-gateway"
    static let accessKeyID = "fcm-bridge-gateway-access"

    let accounts: ServiceAccounts
    /// The audiences an assertion may name: the `token_uri`s of the accounts' files.
    let audiences: Set<String>
    /// One collection per account key, so that an unknown key id never falls back to another key.
    let assertionKeys: [String: [String: JWTKeyCollection]]
    let accessKeys: JWTKeyCollection
    let verified = VerifiedTokens()
    let parser = DefaultJWTParser()

    /// An authority for `accounts`, accepting assertions addressed to one of `audiences`, signing
    /// access tokens with `secret`.
    public init(accounts: ServiceAccounts, audiences: Set<String>, secret: [UInt8]) async {
        self.accounts = accounts
        self.audiences = audiences
        var assertionKeys: [String: [String: JWTKeyCollection]] = [:]
        for (email, account) in accounts.accounts {
            for (id, key) in account.keys {
                assertionKeys[email, default: [:]][id] = await JWTKeyCollection().add(
                    rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: id))
            }
        }
        self.assertionKeys = assertionKeys
        accessKeys = await JWTKeyCollection().add(
            hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: Self.accessKeyID))
    }

    /// An access token for the account that signed `assertion`, or why not.
    public func grant(assertion: String, now: Date) async -> Result<AccessToken, GrantRefusal> {
        // The header and claims, read before any signature is checked: they choose the key.
        guard let (header, unverified, _) = try? parser.parse(Array(assertion.utf8), as: AssertionClaims.self) else {
            return .failure(.invalidGrant("Invalid JWT: its header and claims cannot be read."))
        }
        // Checked against what the keys are for: no `none`, no HMAC with an RSA public key.
        guard header.alg == "RS256" else {
            return .failure(.invalidGrant("Invalid JWT: alg \(header.alg ?? "(none)") is not RS256."))
        }
        let email = unverified.iss.value
        guard let account = accounts.accounts[email], let keys = assertionKeys[email] else {
            return .failure(.invalidGrant("Invalid JWT: iss \(email) is not a configured service account."))
        }
        guard let id = header.kid, let key = keys[id] else {
            return .failure(
                .invalidGrant("Invalid JWT Signature: kid \(header.kid ?? "(none)") is not a key of \(email)."))
        }
        let claims: AssertionClaims
        do {
            claims = try await key.verify(assertion, as: AssertionClaims.self)
        } catch {
            return .failure(.invalidGrant("Invalid JWT Signature."))
        }
        if let refusal = timeProblem(claims, now: now) { return .failure(.invalidGrant(refusal)) }
        guard let audience = claims.aud, audience.value.contains(where: audiences.contains) else {
            return .failure(.invalidGrant("Invalid JWT: aud must be one of \(audiences.sorted())."))
        }
        let scope = claims.scope ?? ""
        guard !scope.isEmpty else { return .failure(.invalidScope("Invalid JWT: no scope.")) }
        let expires = now.addingTimeInterval(Self.accessTokenLifetime)
        let access = AccessClaims(
            iss: IssuerClaim(value: Self.issuer), sub: SubjectClaim(value: account.email), scope: scope,
            iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: expires))
        do {
            let token = try await accessKeys.sign(access, kid: JWKIdentifier(string: Self.accessKeyID))
            return .success(AccessToken(token: token, expiresIn: Int(Self.accessTokenLifetime) - 1))
        } catch {
            return .failure(.invalidGrant("The access token cannot be signed: \(error)"))
        }
    }

    private func timeProblem(_ claims: AssertionClaims, now: Date) -> String? {
        guard let issued = claims.iat?.value, let expires = claims.exp?.value else {
            return "Invalid JWT: iat and exp are required."
        }
        if expires <= now {
            return
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
        }
        if issued > now.addingTimeInterval(Self.allowedSkew) { return "Invalid JWT: iat is in the future." }
        if expires.timeIntervalSince(issued) > Self.longestAssertion {
            return "Invalid JWT: exp is more than an hour after iat."
        }
        if let notBefore = claims.nbf?.value, notBefore > now.addingTimeInterval(Self.allowedSkew) {
            return "Invalid JWT: not valid before \(notBefore)."
        }
        return nil
    }

    /// The caller an `Authorization` header names, or Google's 401.
    public func caller(authorization: String?, now: Date) async -> Result<Caller, GoogleError> {
        let missing = GoogleError.unauthenticated(
            "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential."
        )
        // RFC 6750: the scheme's name is case-insensitive.
        guard let authorization, authorization.prefix(7).lowercased() == "bearer " else { return .failure(missing) }
        let token = String(authorization.dropFirst("Bearer ".count))
        if let caller = verified.caller(for: token, at: now) { return .success(caller) }
        let invalid = GoogleError.unauthenticated(
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential."
        )
        guard let (header, _, _) = try? parser.parse(Array(token.utf8), as: AccessClaims.self),
            header.alg == "HS256", header.kid == Self.accessKeyID,
            let claims = try? await accessKeys.verify(token, as: AccessClaims.self),
            claims.iss.value == Self.issuer, claims.exp.value > now,
            let account = accounts.accounts[claims.sub.value]
        else { return .failure(invalid) }
        let caller = Caller(account: account, scopes: Set(claims.scope.split(separator: " ").map(String.init)))
        verified.remember(token, as: caller, until: claims.exp.value)
        return .success(caller)
    }
}
