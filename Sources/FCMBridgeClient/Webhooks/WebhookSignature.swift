import Crypto
import Foundation

/// The Standard Webhooks signature of a webhook request: headers `webhook-id`,
/// `webhook-timestamp` (seconds since the epoch) and `webhook-signature`, a space-separated
/// `v1,<base64 HMAC-SHA256>` per secret over `id.timestamp.body`.
public enum WebhookSignature {
    /// The header naming the event: the same for every attempt to deliver it.
    public static let idHeader = "webhook-id"
    /// The header with the attempt's time in seconds since the epoch.
    public static let timestampHeader = "webhook-timestamp"
    /// The header with the signatures.
    public static let signatureHeader = "webhook-signature"

    /// The three headers for `body`, sent as event `id` at `timestamp`, signed with each secret.
    public static func headers(id: String, timestamp: Int64, body: [UInt8], secrets: [WebhookSecret]) -> [(
        name: String, value: String
    )] {
        let content = signedContent(id: id, timestamp: timestamp, body: body)
        let signatures = secrets.map {
            "v1,"
                + Data(HMAC<SHA256>.authenticationCode(for: content, using: SymmetricKey(data: $0.key)))
                .base64EncodedString()
        }
        return [
            (idHeader, id), (timestampHeader, String(timestamp)), (signatureHeader, signatures.joined(separator: " ")),
        ]
    }

    /// What is signed: `id.timestamp.body`.
    static func signedContent(id: String, timestamp: Int64, body: [UInt8]) -> [UInt8] {
        Array("\(id).\(timestamp).".utf8) + body
    }
}
