/// Which librdkafka properties hold secrets, and how to show a set of properties without them.
/// Its own module so that configuration and logging can redact without linking librdkafka.
public enum SecretProperties {
    /// True for librdkafka properties whose values are secrets (passwords, keys, tokens).
    public static func isSensitive(_ property: String) -> Bool {
        let name = property.lowercased()
        if ["sasl.username", "sasl.oauthbearer.config", "ssl_key", "ssl.key.location"].contains(name) { return true }
        return ["password", "secret", ".pem", "token", "credential"].contains { name.contains($0) }
    }

    /// `properties` as `[name=value, ...]` sorted by name, secret values shown as `[redacted]`.
    public static func redactedDescription(of properties: [String: String]) -> String {
        let pairs = properties.keys.sorted().map { key in
            "\(key)=\(isSensitive(key) ? "[redacted]" : properties[key] ?? "")"
        }
        return "[" + pairs.joined(separator: ", ") + "]"
    }
}
