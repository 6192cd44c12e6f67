import BridgeGateway
import Crypto
import Foundation
import JWTKit
import _CryptoExtras

/// A service account with a key pair, its accounts file, and assertions signed as Google's
/// client libraries sign them (or as an attacker would).
struct TokenFixture {
    static let email = "app@example.iam.gserviceaccount.com"
    static let project = "example"
    static let keyID = "key-1"
    static let audience = "https://gateway.example/token"
    static let messaging = "https://www.googleapis.com/auth/firebase.messaging"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// One key pair for the whole suite: RSA key generation is slow.
    static let privateKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let otherKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    /// The accounts file naming the account's public key.
    static var accountsJSON: Data {
        let file: [String: Any] = [
            "accounts": [
                [
                    "client_email": email, "projects": [project],
                    "keys": [keyID: privateKey.publicKey.pemRepresentation],
                ]
            ]
        ]
        return try! JSONSerialization.data(withJSONObject: file)
    }

    static func authority(secret: String = String(repeating: "s", count: 32)) async throws -> TokenAuthority {
        await TokenAuthority(
            accounts: try ServiceAccounts(json: accountsJSON, source: "accounts.json"), audiences: [audience],
            secret: Array(secret.utf8))
    }

    struct Claims: JWTPayload {
        var iss: String
        var aud: String
        var iat: Int
        var exp: Int
        var nbf: Int?
        var scope: String
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// An assertion signed with RS256 by `key` under `kid`.
    static func assertion(
        key: _RSA.Signing.PrivateKey = privateKey, kid: String = keyID, issuer: String = email,
        audience: String = audience, issuedAt: Date = now, lifetime: TimeInterval = 3600, notBefore: Date? = nil,
        scope: String = messaging
    ) async throws -> String {
        let keys = await JWTKeyCollection().add(
            rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let claims = Claims(
            iss: issuer, aud: audience, iat: Int(issuedAt.timeIntervalSince1970),
            exp: Int(issuedAt.timeIntervalSince1970 + lifetime), nbf: notBefore.map { Int($0.timeIntervalSince1970) },
            scope: scope)
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// A token with `header` and `claims` as given, signed by `sign` (no signature when nil).
    static func handMade(header: String, claims: String, sign: ((Data) -> Data)? = nil) -> String {
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        return input + "." + (sign.map { base64URL($0(Data(input.utf8))) } ?? "")
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Valid claims as JSON, for hand-made tokens.
    static var claimsJSON: String {
        let iat = Int(now.timeIntervalSince1970)
        return #"{"iss":"\#(email)","aud":"\#(audience)","iat":\#(iat),"exp":\#(iat + 3600),"scope":"\#(messaging)"}"#
    }
}
