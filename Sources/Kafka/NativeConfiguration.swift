import CRDKafka

/// Builds librdkafka's `rd_kafka_conf_t` from properties.
enum NativeConfiguration {
    /// A new `rd_kafka_conf_t` that the caller owns. Errors name the property; they never
    /// carry the value of a secret one.
    static func make(_ properties: [String: String]) throws -> OpaquePointer {
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError.invalidArgument("rd_kafka_conf_new failed")
        }
        var errorText = [CChar](repeating: 0, count: 512)
        for key in properties.keys.sorted() {
            let value = properties[key] ?? ""
            let result = rd_kafka_conf_set(conf, key, value, &errorText, errorText.count)
            guard result == RD_KAFKA_CONF_OK else {
                rd_kafka_conf_destroy(conf)
                let reason = KafkaConfiguration.redact(String(cBuffer: errorText), properties: properties)
                throw KafkaError.invalidArgument("configuration property \"\(key)\": \(reason)")
            }
        }
        return conf
    }
}
