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
        if let problem = set(properties, defaults: defaults, on: conf) {
            rd_kafka_conf_destroy(conf)
            throw KafkaError.invalidArgument("configuration property \"\(problem.property)\": \(problem.reason)")
        }
        return conf
    }

    /// Sets `defaults` (where known and not in `properties`), then `properties`, each in name
    /// order, on `conf`; stops at the first that librdkafka refuses and returns it, its reason
    /// free of secret values.
    static func set(_ properties: [String: String], defaults: [String: String] = [:], on conf: OpaquePointer)
        -> KafkaConfiguration.PropertyProblem?
    {
        var errorText = [CChar](repeating: 0, count: 512)
        let settings =
            defaults.filter { properties[$0.key] == nil }.sorted { $0.key < $1.key }.map { ($0, true) }
            + properties.sorted { $0.key < $1.key }.map { ($0, false) }
        for ((key, value), isDefault) in settings {
            let result = rd_kafka_conf_set(conf, key, value, &errorText, errorText.count)
            if result == RD_KAFKA_CONF_OK || (isDefault && result == RD_KAFKA_CONF_UNKNOWN) { continue }
            let reason = KafkaConfiguration.redact(String(cBuffer: errorText), properties: properties)
            return KafkaConfiguration.PropertyProblem(property: key, reason: reason)
        }
        return nil
    }

    /// The value `conf` holds for `property`, set or librdkafka's default; nil for a property
    /// librdkafka does not know.
    static func value(of property: String, in conf: OpaquePointer) -> String? {
        var size = 0
        guard rd_kafka_conf_get(conf, property, nil, &size) == RD_KAFKA_CONF_OK, size > 0 else { return nil }
        var value = [CChar](repeating: 0, count: size)
        guard rd_kafka_conf_get(conf, property, &value, &size) == RD_KAFKA_CONF_OK else { return nil }
        return String(cBuffer: value)
    }
}
