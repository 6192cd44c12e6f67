import CRDKafka

extension KafkaError {
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
}

extension KafkaError.Code {
    init(_ err: rd_kafka_resp_err_t) { rawValue = err.rawValue }

    /// librdkafka's name for the code, such as `MSG_SIZE_TOO_LARGE`.
    public var description: String { String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: rawValue))) }

    /// The broker refused a message over its size limit (`MSG_SIZE_TOO_LARGE`).
    public static let messageSizeTooLarge = Self(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
    /// The broker refused a record it could not read or accept (`INVALID_RECORD`).
    public static let invalidRecord = Self(RD_KAFKA_RESP_ERR_INVALID_RECORD)
    /// The topic or partition does not exist (`UNKNOWN_TOPIC_OR_PART`).
    public static let unknownTopicOrPartition = Self(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
    /// librdkafka knows no such topic locally (`_UNKNOWN_TOPIC`).
    public static let unknownTopic = Self(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
    /// The message timed out before delivery (`_MSG_TIMED_OUT`).
    public static let messageTimedOut = Self(RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)
    /// A topic to create exists already (`TOPIC_ALREADY_EXISTS`).
    public static let topicAlreadyExists = Self(RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
    /// No connection to a broker could be made or kept (`_TRANSPORT`).
    public static let transport = Self(RD_KAFKA_RESP_ERR__TRANSPORT)
    /// Every broker the client knows is down (`_ALL_BROKERS_DOWN`).
    public static let allBrokersDown = Self(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
    /// A broker's host name did not resolve (`_RESOLVE`).
    public static let resolveFailed = Self(RD_KAFKA_RESP_ERR__RESOLVE)
    /// Authenticating to a broker failed (`_AUTHENTICATION`).
    public static let authentication = Self(RD_KAFKA_RESP_ERR__AUTHENTICATION)
    /// Setting up TLS with a broker failed (`_SSL`).
    public static let tls = Self(RD_KAFKA_RESP_ERR__SSL)
    /// The broker refused the SASL credentials (`SASL_AUTHENTICATION_FAILED`).
    public static let saslAuthenticationFailed = Self(RD_KAFKA_RESP_ERR_SASL_AUTHENTICATION_FAILED)
    /// An operation did not finish in time (`_TIMED_OUT`).
    public static let timedOut = Self(RD_KAFKA_RESP_ERR__TIMED_OUT)
    /// An invalid argument or configuration value (`_INVALID_ARG`).
    public static let invalidArgument = Self(RD_KAFKA_RESP_ERR__INVALID_ARG)
    /// librdkafka's local queue of records to send is full (`_QUEUE_FULL`).
    public static let queueFull = Self(RD_KAFKA_RESP_ERR__QUEUE_FULL)
    /// The client has had a fatal error (`_FATAL`).
    public static let fatal = Self(RD_KAFKA_RESP_ERR__FATAL)
    /// The broker does not support the request's version (`UNSUPPORTED_VERSION`).
    public static let unsupportedVersion = Self(RD_KAFKA_RESP_ERR_UNSUPPORTED_VERSION)
    /// The broker lacks a feature the request needs (`_UNSUPPORTED_FEATURE`).
    public static let unsupportedFeature = Self(RD_KAFKA_RESP_ERR__UNSUPPORTED_FEATURE)
    /// The client may not use the topic (`TOPIC_AUTHORIZATION_FAILED`).
    public static let topicAuthorizationFailed = Self(RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED)
    /// The client may not do this on the cluster (`CLUSTER_AUTHORIZATION_FAILED`).
    public static let clusterAuthorizationFailed = Self(RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED)
    /// The client is closed (`_DESTROY`): ``KafkaProducer/close(timeout:)``,
    /// ``KafkaConsumer/close()`` or ``KafkaAdmin/close()`` was called.
    public static let closed = Self(RD_KAFKA_RESP_ERR__DESTROY)
    /// A broker policy forbids the request (`POLICY_VIOLATION`).
    public static let policyViolation = Self(RD_KAFKA_RESP_ERR_POLICY_VIOLATION)
}
