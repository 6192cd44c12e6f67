import CRDKafka

/// A librdkafka client handle (`rd_kafka_t *`), as the clients' blocking calls receive it on
/// the client's threads (see ``KafkaClient/blocking(_:)``). The calls they make on it are
/// methods of this type, in the `Native` folder with everything else that calls librdkafka:
/// the clients above it speak only Swift.
struct NativeHandle: @unchecked Sendable {
    /// The handle; librdkafka's calls on it are thread-safe.
    let pointer: OpaquePointer
}

extension NativeHandle {
    /// The fatal error the client has had, if any (`rd_kafka_fatal_error`).
    var fatalError: KafkaError? {
        var errorText = [CChar](repeating: 0, count: 512)
        let err = rd_kafka_fatal_error(pointer, &errorText, errorText.count)
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        let text = String(cBuffer: errorText)
        return KafkaError(code: KafkaError.Code(err), message: text, isFatal: true)
    }

    /// Serves the events on an admin client's main queue that have arrived (its errors)
    /// through their callbacks. Does not wait.
    func serveEvents() {
        _ = rd_kafka_poll(pointer, 0)
    }
}
