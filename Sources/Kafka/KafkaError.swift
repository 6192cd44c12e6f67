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

    /// librdkafka's local queue of records to send is full: try again once some are delivered.
    public var isQueueFull: Bool { code == .queueFull }

    /// No broker answered: none could be reached, resolved or kept connected, or the request
    /// timed out. Worth trying again later, unless a connection was refused
    /// (``isConnectionRefusal``), which such an error can hide.
    public var isClusterUnreachable: Bool {
        [Code.transport, .allBrokersDown, .resolveFailed, .timedOut].contains(code)
    }

    /// A broker refused the connection: it did not pass TLS (a certificate not trusted, say) or
    /// refused the credentials. Retrying does not mend it. A failure to get credentials at all
    /// (`_AUTHENTICATION`: an OAUTHBEARER token endpoint that is down) is not one.
    public var isConnectionRefusal: Bool {
        [Code.tls, .saslAuthenticationFailed].contains(code)
    }

    /// The cluster will not do what was asked, however often: it does not support the request
    /// (version or feature), does not authorize it, or a policy forbids it.
    public var isRefusedByCluster: Bool {
        [
            Code.unsupportedVersion, .unsupportedFeature, .topicAuthorizationFailed, .clusterAuthorizationFailed,
            .policyViolation,
        ].contains(code)
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

    }
}
