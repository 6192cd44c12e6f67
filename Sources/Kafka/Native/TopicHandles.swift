import CRDKafka
import Synchronization

/// A producer's `rd_kafka_topic_t` for one topic, so that sends need no lookup by name.
/// Valid while its producer is.
public struct TopicHandle: @unchecked Sendable {
    let name: String
    let pointer: OpaquePointer
}

/// The topic handles a producer has made, one per topic, kept until the producer goes away.
final class TopicHandles: Sendable {
    private let handles = Mutex<[String: TopicHandle]>([:])

    func handle(for name: String, producer: NativeHandle) throws -> TopicHandle {
        try handles.withLock { handles in
            if let handle = handles[name] { return handle }
            guard let pointer = rd_kafka_topic_new(producer.pointer, name, nil) else {
                throw KafkaError(rd_kafka_last_error(), message: "topic \(name)")
            }
            let handle = TopicHandle(name: name, pointer: pointer)
            handles[name] = handle
            return handle
        }
    }

    /// Destroys the handles; call before the client itself is destroyed.
    func destroyAll() {
        handles.withLock { handles in
            for handle in handles.values { rd_kafka_topic_destroy(handle.pointer) }
            handles.removeAll()
        }
    }
}
