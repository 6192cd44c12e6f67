import Crypto
import Foundation

/// Checks that a webhook request came from the bridge: its `webhook-signature` holds a valid
/// signature, by one of the secrets, of its id, timestamp and body, and its timestamp is within
/// `tolerance` of now (so a captured request cannot be replayed later). For an app server:
///
/// ```swift
/// let verifier = try WebhookVerifier(secrets: WebhookSecret.list(secretsFromTheEnvironment))
/// try verifier.verify(id: request.headers["webhook-id"], timestamp: request.headers["webhook-timestamp"],
///                     signature: request.headers["webhook-signature"], body: bodyBytes)
/// ```
public struct WebhookVerifier: Sendable {
    /// Why a request is not the bridge's.
    public enum Failure: Error, Hashable, Sendable {
        /// A header is absent.
        case missingHeader(String)
        /// `webhook-timestamp` is not whole seconds.
        case invalidTimestamp
        /// The timestamp is further than the tolerance from now.
        case outsideTolerance
        /// No signature matches (a changed body, id or timestamp, or another secret).
        case noMatchingSignature
    }

    /// Standard Webhooks' default tolerance.
    public static let defaultTolerance = Duration.seconds(5 * 60)

    private let secrets: [WebhookSecret]
    private let tolerance: Duration

    /// A verifier accepting a signature by any of `secrets` (two while one is rotated).
    public init(secrets: [WebhookSecret], tolerance: Duration = Self.defaultTolerance) {
        self.secrets = secrets
        self.tolerance = tolerance
    }

    /// Returns when the request is the bridge's; throws why not. Each signature is compared in
    /// constant time.
    public func verify(id: String?, timestamp: String?, signature: String?, body: [UInt8], now: Date = Date())
        throws(Failure)
    {
        guard let id else { throw .missingHeader(WebhookSignature.idHeader) }
        guard let timestamp else { throw .missingHeader(WebhookSignature.timestampHeader) }
        guard let signature else { throw .missingHeader(WebhookSignature.signatureHeader) }
        guard let seconds = Int64(timestamp) else { throw .invalidTimestamp }
        let skew = now.timeIntervalSince1970 - Double(seconds)
        guard abs(skew) <= Double(tolerance.components.seconds) else { throw .outsideTolerance }
        let content = WebhookSignature.signedContent(id: id, timestamp: seconds, body: body)
        for candidate in signature.split(separator: " ") where candidate.hasPrefix("v1,") {
            guard let code = Data(base64Encoded: String(candidate.dropFirst(3))) else { continue }
            for secret in secrets
            where HMAC<SHA256>.isValidAuthenticationCode(
                code, authenticating: content, using: SymmetricKey(data: secret.key))
            {
                return
            }
        }
        throw .noMatchingSignature
    }
}
