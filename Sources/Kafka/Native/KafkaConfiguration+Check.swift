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

    /// The first of `properties`, in name order, that librdkafka refuses to set: what creating
    /// a client with them would fail on, found without a client.
    public static func firstProblem(in properties: [String: String]) -> PropertyProblem? {
        guard let conf = rd_kafka_conf_new() else { return nil }
        defer { rd_kafka_conf_destroy(conf) }
        return NativeConfiguration.set(properties, on: conf)
    }
}
