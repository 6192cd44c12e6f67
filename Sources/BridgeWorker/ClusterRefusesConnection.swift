import Kafka

/// A broker refused the worker's connection (an untrusted certificate, refused credentials):
/// the Kafka properties are wrong, and waiting does not mend them.
struct ClusterRefusesConnection: Error, CustomStringConvertible {
    var refusal: KafkaError

    var description: String {
        "the Kafka cluster refuses the connection (\(refusal)): check kafka.properties "
            + "(security.protocol, sasl.*, ssl.*)"
    }
}
