/// A librdkafka client handle (`rd_kafka_t *`), as the clients' blocking calls receive it on
/// the client's threads (see ``KafkaClient/blocking(_:)``). The calls they make on it are
/// methods of this type, in the `Native` folder with everything else that calls librdkafka:
/// the clients above it speak only Swift.
struct NativeHandle: @unchecked Sendable {
    /// The handle; librdkafka's calls on it are thread-safe.
    let pointer: OpaquePointer
}
