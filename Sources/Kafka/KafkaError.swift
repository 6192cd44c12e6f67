import CRDKafka

/// An error reported by librdkafka or by this layer, carrying librdkafka's error code and name.
///
/// `code` is librdkafka's `rd_kafka_resp_err_t` (negative codes are librdkafka's own, positive
/// codes are Kafka protocol errors); `name` is its symbolic name, such as `MSG_SIZE_TOO_LARGE`.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// librdkafka's numeric error code.
    public let code: Int32
    /// librdkafka's name for the code, such as `UNKNOWN_TOPIC_OR_PART`.
    public let name: String
    /// What went wrong, in words.
    public let message: String
    /// The client cannot be used any more (for example a fenced transactional producer).
    public let isFatal: Bool
    /// The operation may succeed if tried again.
    public let isRetriable: Bool
    /// The current transaction must be aborted before the producer can go on.
    public let transactionRequiresAbort: Bool

    /// Creates an error for a librdkafka error code.
    public init(
        code: Int32,
        message: String? = nil,
        isFatal: Bool = false,
        isRetriable: Bool = false,
        transactionRequiresAbort: Bool = false
    ) {
        let err = rd_kafka_resp_err_t(rawValue: code)
        self.code = code
        self.name = String(cString: rd_kafka_err2name(err))
        self.message = message ?? String(cString: rd_kafka_err2str(err))
        self.isFatal = isFatal
        self.isRetriable = isRetriable
        self.transactionRequiresAbort = transactionRequiresAbort
    }

    init(_ err: rd_kafka_resp_err_t, message: String? = nil) {
        self.init(code: err.rawValue, message: message)
    }

    /// librdkafka's local queue of records to send is full: try again once some are delivered.
    public var isQueueFull: Bool { code == RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue }

    /// The cluster will not do what was asked, however often: it does not support the request
    /// (version or feature), does not authorize it, or a policy forbids it.
    public var isRefusedByCluster: Bool {
        [RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION, RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
         RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_POLICY_VIOLATION].contains { $0.rawValue == code }
    }

    /// Takes ownership of an `rd_kafka_error_t` and destroys it.
    init(consuming error: OpaquePointer) {
        self.init(
            code: rd_kafka_error_code(error).rawValue,
            message: String(cString: rd_kafka_error_string(error)),
            isFatal: rd_kafka_error_is_fatal(error) != 0,
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            transactionRequiresAbort: rd_kafka_error_txn_requires_abort(error) != 0
        )
        rd_kafka_error_destroy(error)
    }

    /// Throws if `err` is not `RD_KAFKA_RESP_ERR_NO_ERROR`.
    static func check(_ err: rd_kafka_resp_err_t, _ context: @autoclosure () -> String) throws {
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return }
        let base = KafkaError(err)
        throw KafkaError(code: base.code, message: "\(context()): \(base.message)")
    }

    /// Throws the error an `rd_kafka_error_t`-returning call gave, if any.
    static func check(_ error: OpaquePointer?) throws {
        if let error { throw KafkaError(consuming: error) }
    }

    /// An invalid argument passed to this layer (`_INVALID_ARG`).
    static func invalidArgument(_ message: String) -> KafkaError {
        KafkaError(RD_KAFKA_RESP_ERR__INVALID_ARG, message: message)
    }

    public var description: String { "\(name) (\(code)): \(message)" }
}

extension KafkaError {
    /// The broker refused a message over its size limit (`MSG_SIZE_TOO_LARGE`).
    public static let messageSizeTooLarge = RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE.rawValue
    /// The topic or partition does not exist (`UNKNOWN_TOPIC_OR_PART`).
    public static let unknownTopicOrPartition = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART.rawValue
    /// librdkafka knows no such topic locally (`_UNKNOWN_TOPIC`).
    public static let unknownTopic = RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC.rawValue
    /// The message timed out before delivery (`_MSG_TIMED_OUT`).
    public static let messageTimedOut = RD_KAFKA_RESP_ERR__MSG_TIMED_OUT.rawValue
    /// A topic to create exists already (`TOPIC_ALREADY_EXISTS`).
    public static let topicAlreadyExists = RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS.rawValue
    /// An operation did not finish in time (`_TIMED_OUT`).
    public static let timedOut = RD_KAFKA_RESP_ERR__TIMED_OUT.rawValue
    /// An invalid argument or configuration value (`_INVALID_ARG`).
    public static let invalidArgument = RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue
}
