import Foundation
import Hummingbird

extension GatewayRoutes {
    /// The grant type of a service account's signed assertion (RFC 7523).
    static let jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// `POST /token`: Google's OAuth 2.0 token endpoint for service accounts. A form with
    /// `grant_type` and `assertion` gets `{"access_token", "expires_in", "token_type"}`, or 400
    /// with RFC 6749's error.
    func token(_ request: Request) async throws -> Response {
        struct Form: Decodable {
            var grantType: String?
            var assertion: String?
            enum CodingKeys: String, CodingKey {
                case grantType = "grant_type"
                case assertion
            }
        }
        let text = String(buffer: try await body(of: request))
        guard let form = try? URLEncodedFormDecoder().decode(Form.self, from: text) else {
            return Self.refuse(.invalidRequest("The body must be a form with grant_type and assertion."))
        }
        guard form.grantType == Self.jwtBearerGrant else {
            return Self.refuse(.unsupportedGrantType("Invalid grant_type: \(form.grantType ?? "")"))
        }
        guard let assertion = form.assertion, !assertion.isEmpty else {
            return Self.refuse(.invalidRequest("Missing required parameter: assertion"))
        }
        switch await authority.grant(assertion: assertion, now: now()) {
        case .success(let token):
            var response = Self.json(encoding: token)
            response.headers[.cacheControl] = "no-store"  // RFC 6749, 5.1
            return response
        case .failure(let refusal):
            return Self.refuse(refusal)
        }
    }

    private static func refuse(_ refusal: GrantRefusal) -> Response {
        json(.badRequest, encoding: ["error": refusal.error, "error_description": refusal.description])
    }
}
