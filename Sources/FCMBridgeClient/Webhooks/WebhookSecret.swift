import Foundation

/// A webhook signing secret in the Standard Webhooks form: `whsec_` and the key in base64 (the
/// prefix is optional). Its description never shows the key, so that it cannot reach a log line.
public struct WebhookSecret: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// What is wrong with a secret's text; never quotes the secret.
    public struct InvalidSecret: Error, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// The fewest key bytes accepted: Standard Webhooks' secrets have 24 to 64.
    public static let minimumKeyBytes = 24

    /// The HMAC key.
    let key: [UInt8]

    /// A secret from its text, `whsec_<base64>` or `<base64>`.
    public init(_ text: String) throws(InvalidSecret) {
        let encoded = text.hasPrefix("whsec_") ? String(text.dropFirst("whsec_".count)) : text
        guard let key = Data(base64Encoded: encoded) else {
            throw InvalidSecret(
                description: "a webhook secret must be whsec_ and base64, or base64 (\(text.count) characters given)")
        }
        guard key.count >= Self.minimumKeyBytes else {
            throw InvalidSecret(
                description: "a webhook secret must hold at least \(Self.minimumKeyBytes) bytes, not \(key.count)")
        }
        self.key = Array(key)
    }

    /// Secrets separated by white space or commas, as an environment variable or a file holds
    /// them: several while one is rotated. Lines starting with `#` are comments.
    public static func list(_ text: String) throws(InvalidSecret) -> [WebhookSecret] {
        var secrets: [WebhookSecret] = []
        for line in text.split(whereSeparator: \.isNewline)
        where !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") {
            for word in line.split(whereSeparator: { $0.isWhitespace || $0 == "," }) {
                secrets.append(try WebhookSecret(String(word)))
            }
        }
        return secrets
    }

    /// A new random secret, `whsec_` and 32 bytes in base64.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return "whsec_"
            + Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64EncodedString()
    }

    public var description: String { "WebhookSecret(\(key.count) bytes, redacted)" }

    /// No children: `dump` and mirrors do not show the key either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
