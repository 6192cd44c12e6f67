import CRDKafka
import Logging
import Synchronization

/// The messages of one poll, held in librdkafka's memory until the batch is released: for code
/// that reads records in place (``ConsumerRecordView``) and copies only what it keeps.
///
/// Consumer errors among the messages are dealt with when the batch is made: a fatal one is kept
/// for the consumer to throw, the others are logged (librdkafka retries them). What is left are
/// records and ends of partitions, in the order they were read.
public final class ConsumedBatch: @unchecked Sendable {
    // Unchecked: made whole on a client thread; after that, its messages are read (and released)
    // by the one call that takes them (`isTaken`), or released by `deinit`.
    private let messages: UnsafeMutableBufferPointer<UnsafeMutablePointer<rd_kafka_message_t>?>
    private let isTaken = Mutex(false)
    /// The client the messages belong to: librdkafka cannot destroy it while they are held.
    private let client: KafkaClient<NativeConsumerState>?
    /// The partitions read to their end by this poll, each with its next offset (only with
    /// ``KafkaConsumerConfiguration/reportsEndOfPartition``).
    public let endsOfPartition: [TopicPartitionOffset]
    /// The partitions whose position the broker answered out of range, with nothing to reset it
    /// to (``AutoOffsetReset/error``): their fetching stops until they are sought.
    public let offsetsOutOfRange: [TopicPartition]
    /// The rebalance this poll returned instead of records (see ``ConsumerEvent``); nil for a
    /// batch of records.
    public let rebalance: ConsumerEvent?
    /// How many records the batch held when it was made.
    public let recordCount: Int
    /// The fatal consumer error among the messages, with its cause.
    let fatalError: KafkaError?
    /// The name of each topic handle seen, resolved once per batch.
    private let topicNames: [(handle: OpaquePointer, name: String)]

    /// A batch holding only `rebalance`.
    init(rebalance: ConsumerEvent) {
        self.messages = UnsafeMutableBufferPointer(start: nil, count: 0)
        self.endsOfPartition = []
        self.offsetsOutOfRange = []
        self.client = nil
        self.rebalance = rebalance
        self.recordCount = 0
        self.fatalError = nil
        self.topicNames = []
    }

    /// Takes what has arrived, up to `maxRecords` messages, waiting up to `timeoutMilliseconds`
    /// for the first: from `client`'s consumer queue and, for a consumer that reads partitions in
    /// turns, from each partition's queue. Blocks: call it on a client thread.
    init(
        consumingFrom client: KafkaClient<NativeConsumerState>, context: ConsumerContext, native: NativeHandle,
        maxRecords: Int, timeoutMilliseconds: Int32, logger: Logger
    ) throws(KafkaError) {
        let handle = native.pointer
        let maxRecords = max(maxRecords, 1)
        let storage = UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>.allocate(capacity: maxRecords)
        let count: Int
        do throws(KafkaError) {
            count =
                if let wakeUps = context.wakeUps {
                    try Self.takeTurns(
                        of: handle, context: context, wakeUps: wakeUps, into: storage, maxRecords: maxRecords,
                        timeoutMilliseconds: timeoutMilliseconds)
                } else {
                    try Self.takeConsumerQueue(
                        of: handle, into: storage, maxRecords: maxRecords, timeoutMilliseconds: timeoutMilliseconds)
                }
        } catch {
            storage.deallocate()
            throw error
        }
        messages = UnsafeMutableBufferPointer(start: storage, count: count)
        self.client = client
        rebalance = nil
        var ends: [TopicPartitionOffset] = []
        var outOfRange: [TopicPartition] = []
        var names: [(handle: OpaquePointer, name: String)] = []
        var records = 0
        var fatal: KafkaError?
        for case let message? in messages {
            let m = message.pointee
            if let topic = m.rkt, !names.contains(where: { $0.handle == topic }) {
                names.append((topic, String(cString: rd_kafka_topic_name(topic))))
            }
            switch m.err {
            case RD_KAFKA_RESP_ERR_NO_ERROR:
                records += 1
            case RD_KAFKA_RESP_ERR__PARTITION_EOF:
                ends.append(
                    TopicPartitionOffset(TopicPartition(Self.name(of: m.rkt, in: names), m.partition), offset: m.offset)
                )
            case RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET:
                outOfRange.append(TopicPartition(Self.name(of: m.rkt, in: names), m.partition))
            default:
                let partition = TopicPartition(Self.name(of: m.rkt, in: names), m.partition)
                let text =
                    m.payload.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) }
                    ?? String(cString: rd_kafka_err2str(m.err))
                let error = KafkaError(m.err, message: "\(partition): \(text)")
                if error.code == .fatal { fatal = error } else { logger.warning("consumer: \(error)") }
            }
        }
        endsOfPartition = ends
        offsetsOutOfRange = outOfRange
        recordCount = records
        topicNames = names
        fatalError = fatal.map { fatal in
            let cause = native.fatalError
            return KafkaError(
                code: cause?.code ?? fatal.code, message: "\(fatal.message): \(cause?.message ?? "")", isFatal: true)
        }
    }

    /// librdkafka's consumer queue: waits for the first message only, then takes whatever else
    /// is there without waiting.
    private static func takeConsumerQueue(
        of handle: OpaquePointer, into storage: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>,
        maxRecords: Int, timeoutMilliseconds: Int32
    ) throws(KafkaError) -> Int {
        let queue = rd_kafka_queue_get_consumer(handle)
        defer { rd_kafka_queue_destroy(queue) }
        var count = rd_kafka_consume_batch_queue(queue, timeoutMilliseconds, storage, 1)
        if count == 1 && maxRecords > 1 {
            // An error here is the next poll's to report: the first message is kept.
            count += max(0, rd_kafka_consume_batch_queue(queue, 0, storage + 1, maxRecords - 1))
        }
        guard count >= 0 else { throw KafkaError(rd_kafka_last_error(), message: "consume") }
        return count
    }

    /// The consumer queue (rebalances and errors, served first), then a turn of each partition's
    /// queue; when both are empty, waits for either until the timeout, or until a rebalance
    /// waits for the caller.
    private static func takeTurns(
        of handle: OpaquePointer, context: ConsumerContext, wakeUps: WakeUpPipe,
        into storage: UnsafeMutablePointer<UnsafeMutablePointer<rd_kafka_message_t>?>, maxRecords: Int,
        timeoutMilliseconds: Int32
    ) throws(KafkaError) -> Int {
        let consumerQueue = rd_kafka_queue_get_consumer(handle)
        defer { rd_kafka_queue_destroy(consumerQueue) }
        let deadline = ContinuousClock.now + .milliseconds(timeoutMilliseconds)
        while true {
            wakeUps.clear()
            // Serving the consumer queue runs the rebalance callback, which takes the state's
            // lock: never inside `takeTurns`.
            let served = rd_kafka_consume_batch_queue(consumerQueue, 0, storage, maxRecords)
            guard served >= 0 else { throw KafkaError(rd_kafka_last_error(), message: "consume") }
            let count = served + context.takeTurns(into: storage + served, capacity: maxRecords - served)
            let remaining = deadline - .now
            if count > 0 || remaining <= .zero || context.state.withLockedValue(\.hasReported) {
                return count
            }
            wakeUps.wait(milliseconds: Int32(clamping: remaining.milliseconds + 1))
        }
    }

    deinit {
        for case let message? in messages { rd_kafka_message_destroy(message) }
        messages.baseAddress?.deallocate()
    }

    /// Calls `body` with each record, in order, and releases each message once its call returns:
    /// a view is valid only during its call, and a batch is read once (a second call reads
    /// nothing). Releasing as it goes lets the memory of one record serve the next.
    public func readRecords(_ body: (borrowing ConsumerRecordView) throws -> Void) rethrows {
        guard take() else { return }
        for index in messages.indices {
            guard let message = messages[index] else { continue }
            messages[index] = nil
            defer { rd_kafka_message_destroy(message) }
            guard message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR else { continue }
            try body(ConsumerRecordView(message: message, topic: Self.name(of: message.pointee.rkt, in: topicNames)))
        }
    }

    /// Calls `body` with each message in order, errors included, for ``NativeMessageConverter``,
    /// which reads a batch before anyone else can; the batch releases them.
    func forEachMessage(_ body: (UnsafeMutablePointer<rd_kafka_message_t>, _ topic: String) throws -> Void) rethrows {
        for case let message? in messages {
            try body(message, Self.name(of: message.pointee.rkt, in: topicNames))
        }
    }

    /// Whether this call is the one that takes the messages.
    private func take() -> Bool {
        isTaken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }

    private static func name(of topic: OpaquePointer?, in names: [(handle: OpaquePointer, name: String)]) -> String {
        names.first { $0.handle == topic }?.name ?? ""
    }
}
