import BridgeGateway
import Crypto
import Foundation
import Testing

@Suite struct TokenAuthorityTests {
    typealias Fixture = TokenFixture

    @Test func aGoodAssertionGetsATokenThatSends() async throws {
        let authority = try await Fixture.authority()
        let token = try await authority.grant(assertion: try await Fixture.assertion(), now: Fixture.now).get()
        #expect(token.expiresIn == 3599)
        let caller = try await authority.caller(authorization: "Bearer \(token.token)", now: Fixture.now).get()
        #expect(caller.account.email == Fixture.email)
        #expect(caller.problem(sendingFor: Fixture.project) == nil)
    }

    /// Each hostile assertion, and the words of the refusal that say why.
    static let refusedAssertions: [(String, @Sendable () async throws -> String, String)] = [
        ("expired", { try await Fixture.assertion(issuedAt: Fixture.now - 3700) }, "short-lived"),
        ("issued in the future", { try await Fixture.assertion(issuedAt: Fixture.now + 600) }, "iat is in the future"),
        ("not yet valid", { try await Fixture.assertion(notBefore: Fixture.now + 600) }, "not valid before"),
        ("living over an hour", { try await Fixture.assertion(lifetime: 7200) }, "more than an hour"),
        (
            "for another audience", { try await Fixture.assertion(audience: "https://oauth2.googleapis.com/token") },
            "aud"
        ),
        ("from another issuer", { try await Fixture.assertion(issuer: "other@example.com") }, "not a configured"),
        ("with an unknown key id", { try await Fixture.assertion(kid: "key-2") }, "kid key-2"),
        ("signed by another key", { try await Fixture.assertion(key: Fixture.otherKey) }, "Signature"),
        (
            "with alg none", { Fixture.handMade(header: #"{"alg":"none","kid":"key-1"}"#, claims: Fixture.claimsJSON) },
            "alg none"
        ),
        (
            "signed HS256 with the public key",
            {
                let secret = SymmetricKey(data: Data(Fixture.privateKey.publicKey.pemRepresentation.utf8))
                return Fixture.handMade(
                    header: #"{"alg":"HS256","kid":"key-1","typ":"JWT"}"#, claims: Fixture.claimsJSON
                ) {
                    Data(HMAC<SHA256>.authenticationCode(for: $0, using: secret))
                }
            }, "alg HS256"
        ),
        ("not a JWT", { "not.a.jwt" }, "Invalid JWT"),
    ]

    @Test(arguments: 0..<refusedAssertions.count)
    func hostileAssertionsAreRefused(_ index: Int) async throws {
        let (name, make, reason) = Self.refusedAssertions[index]
        let authority = try await Fixture.authority()
        let result = await authority.grant(assertion: try await make(), now: Fixture.now)
        guard case .failure(let refusal) = result else {
            Issue.record("an assertion \(name) was granted")
            return
        }
        #expect(refusal.error == "invalid_grant", "\(name)")
        #expect(refusal.description.contains(reason), "\(name): \(refusal.description)")
    }

    @Test func accessTokensAreCheckedOnEveryRequest() async throws {
        let authority = try await Fixture.authority()
        let token = try await authority.grant(assertion: try await Fixture.assertion(), now: Fixture.now).get().token
        let otherGateway = try await Fixture.authority(secret: String(repeating: "t", count: 32))
        let cases: [(String, String?, Date, TokenAuthority)] = [
            ("no header", nil, Fixture.now, authority),
            ("not a bearer", "Basic \(token)", Fixture.now, authority),
            ("expired", "Bearer \(token)", Fixture.now + 3601, authority),
            ("another gateway's", "Bearer \(token)", Fixture.now, otherGateway),
            ("an assertion", "Bearer \(try await Fixture.assertion())", Fixture.now, authority),
            ("tampered", "Bearer \(Self.tampered(token))", Fixture.now, authority),
        ]
        for (name, header, now, checker) in cases {
            let result = await checker.caller(authorization: header, now: now)
            guard case .failure(let error) = result else {
                Issue.record("\(name) was accepted")
                continue
            }
            #expect(error.status.code == 401, "\(name)")
            #expect(error.code == "UNAUTHENTICATED", "\(name)")
        }
    }

    /// `token` with the first character of its signature changed: the signature's first six bits
    /// always differ. (Its last characters may carry padding bits a decoder ignores, and may
    /// already be the ones written over them.)
    static func tampered(_ token: String) -> String {
        guard let dot = token.lastIndex(of: "."), token.index(after: dot) < token.endIndex else { return token + "A" }
        let first = token[token.index(after: dot)]
        return token[...dot] + (first == "A" ? "B" : "A") + token[token.index(dot, offsetBy: 2)...]
    }

    @Test func anotherProjectOrAMissingScopeIsForbidden() async throws {
        let authority = try await Fixture.authority()
        let sending = try await authority.grant(assertion: try await Fixture.assertion(), now: Fixture.now).get()
        let caller = try await authority.caller(authorization: "Bearer \(sending.token)", now: Fixture.now).get()
        #expect(caller.problem(sendingFor: "another")?.code == "PERMISSION_DENIED")
        let unscoped = try await authority.grant(
            assertion: try await Fixture.assertion(scope: "https://www.googleapis.com/auth/userinfo.email"),
            now: Fixture.now
        ).get()
        let reader = try await authority.caller(authorization: "Bearer \(unscoped.token)", now: Fixture.now).get()
        let problem = reader.problem(sendingFor: Fixture.project)
        #expect(problem?.status.code == 403)
        #expect(problem?.message == "Request had insufficient authentication scopes.")
    }
}
