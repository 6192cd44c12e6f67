import CRDKafka

extension KafkaConfiguration {
    /// A librdkafka property its linked release refuses, with librdkafka's reason.
    public struct PropertyProblem: Sendable, Hashable {
        /// The property's name.
        public var property: String
        /// Why librdkafka refuses it: an unknown name or an invalid value. Never holds the
        /// value of a secret property.
        public var reason: String
    }

    /// Each of `properties`, in name order, that librdkafka refuses to set: what creating a
    /// client with them would fail on, found without a client.
    public static func problems(in properties: [String: String]) -> [PropertyProblem] {
        guard let conf = rd_kafka_conf_new() else { return [] }
        defer { rd_kafka_conf_destroy(conf) }
        return properties.sorted { $0.key < $1.key }.compactMap {
            NativeConfiguration.set([$0.key: $0.value], on: conf)
        }
        .map { PropertyProblem(property: $0.property, reason: redact($0.reason, properties: properties)) }
    }
}
