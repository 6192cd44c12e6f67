import Foundation
import SecretProperties

/// Settings every Kafka client shares: where the cluster is, who the client is, and any
/// librdkafka property (SASL, TLS, tuning) passed through as is.
///
/// `properties` are applied last, so they win over the typed settings of every client
/// configuration. Values of secret properties never appear in `description` or in errors.
public struct KafkaConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// Comma-separated `host:port` list (librdkafka's `bootstrap.servers`).
    public var bootstrapServers: String
    /// The client id the brokers see in their logs (`client.id`).
    public var clientID: String
    /// Any librdkafka configuration property, by its librdkafka name.
    public var properties: [String: String]

    /// Creates a configuration for the given cluster.
    public init(bootstrapServers: String, clientID: String = "fcm-bridge", properties: [String: String] = [:]) {
        self.bootstrapServers = bootstrapServers
        self.clientID = clientID
        self.properties = properties
    }

    var commonProperties: [String: String] {
        ["bootstrap.servers": bootstrapServers, "client.id": clientID]
    }

    /// Defaults for every client of properties that not every supported librdkafka release
    /// knows: each is set where the linked librdkafka knows it, and ``properties`` win.
    ///
    /// - `enable.metrics.push` (client telemetry to the broker, KIP-714, librdkafka 2.5 and
    ///   later) is off: the bridge exports its own metrics, and with telemetry on, librdkafka
    ///   2.5 to 2.8 can miss telemetry's end in `rd_kafka_destroy` and wait a full second there
    ///   (fixed in 2.9: "Avoid termination_cnd triggered when no one's listening"), and 2.5.0 to
    ///   2.5.2 can abort in a telemetry push (their changelog's warning).
    static let defaultsWhereKnown = ["enable.metrics.push": "false"]

    /// The configuration with secret values replaced by `[redacted]`.
    public var description: String {
        let shown = commonProperties.merging(properties) { $1 }
        return SecretProperties.redactedDescription(of: shown)
    }

    /// `text` with the value of every secret property in `properties` replaced by `[redacted]`.
    static func redact(_ text: String, properties: [String: String]) -> String {
        properties
            .filter { SecretProperties.isSensitive($0.key) && !$0.value.isEmpty }
            .reduce(text) { $0.replacingOccurrences(of: $1.value, with: "[redacted]") }
    }
}

/// Where a consumer starts in a partition that has no committed offset.
public enum AutoOffsetReset: String, Sendable, Hashable {
    case earliest
    case latest
    /// Fail with an error instead.
    case error
}

/// Whether a consumer sees records of aborted transactions.
public enum IsolationLevel: String, Sendable, Hashable {
    case readCommitted = "read_committed"
    case readUncommitted = "read_uncommitted"
}

extension Duration {
    /// Whole milliseconds, for librdkafka's `*.ms` properties and timeouts; saturating at
    /// `Int`'s bounds.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let (whole, overflow) = Int(seconds).multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carry) = whole.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
        return carry ? (seconds < 0 ? .min : .max) : total
    }
}
