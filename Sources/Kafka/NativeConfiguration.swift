import CRDKafka

/// Builds librdkafka's `rd_kafka_conf_t` from properties.
enum NativeConfiguration {
    /// A new `rd_kafka_conf_t` that the caller owns. Errors name the property; they never
    /// carry the value of a secret one.
    ///
    /// `defaults` are properties that not every supported librdkafka release knows: each is set
    /// first, and only where the linked librdkafka knows it and `properties` leave it alone.
    static func make(_ properties: [String: String], defaults: [String: String] = [:]) throws -> OpaquePointer {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError.invalidArgument("rd_kafka_conf_new failed")
        }
        var errorText = [CChar](repeating: 0, count: 512)
        let settings = defaults.filter { properties[$0.key] == nil }.sorted { $0.key < $1.key }.map { ($0, true) }
            + properties.sorted { $0.key < $1.key }.map { ($0, false) }
        for ((key, value), isDefault) in settings {
            let result = rd_kafka_conf_set(conf, key, value, &errorText, errorText.count)
            if result == RD_KAFKA_CONF_OK || (isDefault && result == RD_KAFKA_CONF_UNKNOWN) { continue }
            rd_kafka_conf_destroy(conf)
            let reason = KafkaConfiguration.redact(String(cBuffer: errorText), properties: properties)
            throw KafkaError.invalidArgument("configuration property \"\(key)\": \(reason)")
        }
        return conf
    }
}
