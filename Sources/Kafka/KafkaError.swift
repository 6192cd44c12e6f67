import CRDKafka

/// An error reported by librdkafka or by this layer, carrying librdkafka's error code and name.
///
/// `code` is librdkafka's `rd_kafka_resp_err_t` (negative codes are librdkafka's own, positive
/// codes are Kafka protocol errors), compared by its named values (``Code/messageSizeTooLarge``);
/// `name` is its symbolic name, such as `MSG_SIZE_TOO_LARGE`.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// librdkafka's error code.
    public let code: Code
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
        code: Code,
        message: String? = nil,
        isFatal: Bool = false,
        isRetriable: Bool = false,
        transactionRequiresAbort: Bool = false
    ) {
        let err = rd_kafka_resp_err_t(rawValue: code.rawValue)
        self.code = code
        self.name = String(cString: rd_kafka_err2name(err))
        self.message = message ?? String(cString: rd_kafka_err2str(err))
        self.isFatal = isFatal
        self.isRetriable = isRetriable
        self.transactionRequiresAbort = transactionRequiresAbort
    }

    init(_ err: rd_kafka_resp_err_t, message: String? = nil) {
        self.init(code: Code(err), message: message)
    }

    /// librdkafka's local queue of records to send is full: try again once some are delivered.
    public var isQueueFull: Bool { code == .queueFull }

    /// The cluster will not do what was asked, however often: it does not support the request
    /// (version or feature), does not authorize it, or a policy forbids it.
    public var isRefusedByCluster: Bool {
        [
            Code.unsupportedVersion, .unsupportedFeature, .topicAuthorizationFailed, .clusterAuthorizationFailed,
            .policyViolation,
        ].contains(code)
    }

    /// Takes ownership of an `rd_kafka_error_t` and destroys it.
    init(consuming error: OpaquePointer) {
        self.init(
            code: Code(rd_kafka_error_code(error)),
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

    public var description: String { "\(name) (\(code.rawValue)): \(message)" }
}

extension KafkaError {
    /// librdkafka's error code (`rd_kafka_resp_err_t`), with the codes this layer and its callers
    /// tell apart by name.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The numeric code: negative for librdkafka's own, positive for Kafka protocol errors.
        public let rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        init(_ err: rd_kafka_resp_err_t) { rawValue = err.rawValue }

        /// librdkafka's name for the code, such as `MSG_SIZE_TOO_LARGE`.
        public var description: String { String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: rawValue))) }

        /// The broker refused a message over its size limit (`MSG_SIZE_TOO_LARGE`).
        public static let messageSizeTooLarge = Code(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
        /// The broker refused a record it could not read or accept (`INVALID_RECORD`).
        public static let invalidRecord = Code(RD_KAFKA_RESP_ERR_INVALID_RECORD)
        /// The topic or partition does not exist (`UNKNOWN_TOPIC_OR_PART`).
        public static let unknownTopicOrPartition = Code(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
        /// librdkafka knows no such topic locally (`_UNKNOWN_TOPIC`).
        public static let unknownTopic = Code(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
        /// The message timed out before delivery (`_MSG_TIMED_OUT`).
        public static let messageTimedOut = Code(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)
        /// A topic to create exists already (`TOPIC_ALREADY_EXISTS`).
        public static let topicAlreadyExists = Code(RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        /// An operation did not finish in time (`_TIMED_OUT`).
        public static let timedOut = Code(RD_KAFKA_RESP_ERR__TIMED_OUT)
        /// An invalid argument or configuration value (`_INVALID_ARG`).
        public static let invalidArgument = Code(RD_KAFKA_RESP_ERR__INVALID_ARG)
        /// librdkafka's local queue of records to send is full (`_QUEUE_FULL`).
        public static let queueFull = Code(RD_KAFKA_RESP_ERR__QUEUE_FULL)
        /// The client has had a fatal error (`_FATAL`).
        public static let fatal = Code(RD_KAFKA_RESP_ERR__FATAL)
        /// The broker does not support the request's version (`UNSUPPORTED_VERSION`).
        public static let unsupportedVersion = Code(RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION)
        /// The broker lacks a feature the request needs (`_UNSUPPORTED_FEATURE`).
        public static let unsupportedFeature = Code(RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
        /// The client may not use the topic (`TOPIC_AUTHORIZATION_FAILED`).
        public static let topicAuthorizationFailed = Code(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
        /// The client may not do this on the cluster (`CLUSTER_AUTHORIZATION_FAILED`).
        public static let clusterAuthorizationFailed = Code(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED)
        /// The client is closed (`_DESTROY`): ``KafkaProducer/close(timeout:)``,
        /// ``KafkaConsumer/close()`` or ``KafkaAdmin/close()`` was called.
        public static let closed = Code(RD_KAFKA_RESP_ERR__DESTROY)
        /// A broker policy forbids the request (`POLICY_VIOLATION`).
        public static let policyViolation = Code(RD_KAFKA_RESP_ERR_POLICY_VIOLATION)
    }
}
