import CRDKafka
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import SecretProperties
import Synchronization

/// What librdkafka's callbacks reach through the client's opaque pointer.
class ClientContext: @unchecked Sendable {
    let logger: Logger
    /// Secret property values, which librdkafka's log lines and errors must not carry.
    let secrets: [String: String]
    /// Told of every statistics report (`statistics.interval.ms`), on librdkafka's thread.
    let statistics: (@Sendable (KafkaStatistics) -> Void)?
    /// The last refusal of a broker connection the error callback reported.
    private let refusal = Mutex<KafkaError?>(nil)

    init(logger: Logger, properties: [String: String], statistics: (@Sendable (KafkaStatistics) -> Void)? = nil) {
        self.logger = logger
        self.secrets = properties.filter { SecretProperties.isSensitive($0.key) }
        self.statistics = statistics
    }

    /// The refusal of a broker connection (``KafkaError/isConnectionRefusal``) reported since
    /// the last time this was asked, which retrying does not mend; nil when there was none.
    func takeRefusal() -> KafkaError? { refusal.withLock { $0.take() } }

    /// Logs an error of librdkafka's error callback at the level it deserves, and keeps it
    /// when it is a refusal of a connection.
    func report(_ error: KafkaError) {
        logger.log(level: Logger.Level(clientError: error), "librdkafka: \(error)")
        if error.isConnectionRefusal { refusal.withLock { $0 = error } }
    }

    /// `text` with secret values replaced by `[redacted]`.
    func redact(_ text: String) -> String {
        secrets.isEmpty ? text : KafkaConfiguration.redact(text, properties: secrets)
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> ClientContext? {
        opaque.map { Unmanaged<ClientContext>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// One librdkafka client (`rd_kafka_t`), its state with the handle inside, and the threads that
/// make its blocking calls.
///
/// librdkafka's blocking calls run on the client's own threads, never on Swift's cooperative
/// pool: `blocking` has one thread per long-running loop plus one for calls like commit.
final class KafkaClient<State: ClientStateMachine>: @unchecked Sendable where State.Handle == NativeHandle {
    /// The handle, for `deinit` alone: calls reach it through ``state``.
    private let handle: OpaquePointer
    let context: ClientContext
    let logger: Logger
    private let threads: NIOThreadPool
    /// The client's state, behind its one lock; the role's own transitions (a close) go through it.
    let state: NIOLockedValueBox<State>
    private let retainedContext: Unmanaged<ClientContext>

    /// What a client is for, which decides the callbacks it gets.
    enum Role {
        /// A consumer; `inGroup` when it has a `group.id`, whose rebalances reach its context.
        case consumer(inGroup: Bool)
        /// A producer, whose delivery reports complete ``PendingDeliveries``.
        case producer
        /// An admin client.
        case admin
    }

    /// - Parameters:
    ///   - context: built from the same `properties`, so that it knows the secrets; a consumer's
    ///     is a ``ConsumerContext``.
    ///   - state: the state, not started yet, which gets the handle once the client is made; a
    ///     consumer's is its context's.
    ///   - threadCount: threads for blocking calls (add one for each long-running loop).
    init(
        role: Role, properties: [String: String], context: ClientContext, state: NIOLockedValueBox<State>,
        threadCount: Int = 1
    ) throws {
        try Librdkafka.requireMinimumVersion()
        // Statistics nobody listens for would pile up as events in a queue nobody serves.
        let conf = try NativeConfiguration.make(
            context.statistics == nil ? properties.filter { $0.key != "statistics.interval.ms" } : properties,
            defaults: KafkaConfiguration.defaultsWhereKnown
        )
        self.context = context
        self.logger = context.logger
        self.retainedContext = Unmanaged.passRetained(context)
        rd_kafka_conf_set_opaque(conf, retainedContext.toOpaque())
        rd_kafka_conf_set_log_cb(conf) { rk, level, facility, message in
            guard let context = ClientContext.from(rd_kafka_opaque(rk)) else { return }
            let name = facility.map { String(cString: $0) } ?? ""
            // A broker connection's failure is raised through the error callback too, with its
            // code: it is logged there, once, at the level the code deserves.
            guard name != "FAIL" else { return }
            let text = context.redact(message.map { String(cString: $0) } ?? "")
            context.logger.log(level: Logger.Level(syslog: level), "\(text)", metadata: ["librdkafka": "\(name)"])
        }
        rd_kafka_conf_set_error_cb(conf) { rk, err, reason, _ in
            guard let context = ClientContext.from(rd_kafka_opaque(rk)) else { return }
            let code = rd_kafka_resp_err_t(rawValue: err)
            context.report(KafkaError(code, message: reason.map { context.redact(String(cString: $0)) }))
        }
        if context.statistics != nil {
            rd_kafka_conf_set_stats_cb(conf) { rk, json, length, _ in
                guard let context = ClientContext.from(rd_kafka_opaque(rk)), let json, let report = context.statistics
                else { return 0 }
                do {
                    report(try KafkaStatistics.decode(UnsafeRawBufferPointer(start: json, count: length)))
                } catch {
                    context.logger.debug("unreadable librdkafka statistics", metadata: ["error": "\(error)"])
                }
                return 0  // librdkafka frees the JSON
            }
        }
        switch role {
        case .consumer(inGroup: true): rd_kafka_conf_set_rebalance_cb(conf, ConsumerContext.rebalanceCallback)
        case .consumer(inGroup: false), .admin: break
        case .producer:
            rd_kafka_conf_set_dr_msg_cb(conf) { _, message, _ in
                guard let message, let opaque = message.pointee._private else { return }
                PendingDeliveries.complete(opaque: opaque, message: message)
            }
        }

        var errorText = [CChar](repeating: 0, count: 512)
        let type = if case .consumer = role { RD_KAFKA_CONSUMER } else { RD_KAFKA_PRODUCER }
        guard let handle = rd_kafka_new(type, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)
            retainedContext.release()
            let text = context.redact(String(cBuffer: errorText))
            throw KafkaError.invalidArgument("cannot create Kafka client: \(text)")
        }
        self.handle = handle
        self.state = state
        state.withLockedValue { $0.start(NativeHandle(pointer: handle)) }
        self.threads = NIOThreadPool(numberOfThreads: threadCount)
        threads.start()
        // A consumer serves everything (logs, errors, rebalances) from its consumer queue.
        if case .consumer = role { rd_kafka_poll_set_consumer(handle) }
    }

    /// The handle for `operation`, which does not block; throws ``KafkaError/Code/closed`` at
    /// once when the client is closed, or closing unless `duringClose`. The only way to the
    /// handle: no call can forget to ask.
    func handle(for operation: @autoclosure () -> String, duringClose: Bool = false) throws(KafkaError)
        -> NativeHandle
    {
        guard let native = state.withLockedValue({ $0.handle(duringClose: duringClose) }) else {
            throw KafkaError(code: .closed, message: "\(operation()): the client is closed")
        }
        return native
    }

    /// Runs `operation`, a blocking librdkafka call, on one of the client's threads, served as
    /// ``handle(for:duringClose:)`` serves calls. A cancelled task's call is not run: it
    /// throws `CancellationError`.
    func blocking<T: Sendable>(
        _ operation: @autoclosure () -> String, duringClose: Bool = false,
        _ body: @escaping @Sendable (NativeHandle) throws -> T
    ) async throws -> T {
        let native = try handle(for: operation(), duringClose: duringClose)
        return try await threads.runIfActive { try body(native) }
    }

    /// Runs a blocking call as ``blocking(_:duringClose:_:)`` does (during a close too, unless
    /// told otherwise), even for a cancelled task: for what a close must do whatever ended its
    /// caller's work (leave the group, deliver or give up records).
    func blockingEvenIfCancelled<T: Sendable>(
        _ operation: @autoclosure () -> String, duringClose: Bool = true,
        _ body: @escaping @Sendable (NativeHandle) throws -> T
    ) async throws -> T {
        let native = try handle(for: operation(), duringClose: duringClose)
        return try await withCheckedThrowingContinuation { continuation in
            threads.submit { state in
                guard state == .active else {
                    continuation.resume(throwing: KafkaError(code: .closed, message: "the client's threads stopped"))
                    return
                }
                continuation.resume(with: Result { try body(native) })
            }
        }
    }

    /// Runs `body` again and again on a thread of its own until the client is closed.
    /// `body` should block for a short while (a poll with a timeout of ~100 ms). The loop holds
    /// the client: a client is never released while one of its loops runs.
    func startLoop(_ body: @escaping @Sendable (NativeHandle) -> Void) {
        threads.submit { [self] work in
            guard work == .active else { return }
            while let native = state.withLockedValue({ $0.loopHandle }) { body(native) }
        }
    }

    /// Whether the close has finished.
    var isClosed: Bool { state.withLockedValue { $0.isClosed } }

    /// Ends the close: the loops end after their current round, and the threads stop.
    func finishClose() async {
        state.withLockedValue { $0.finishClose() }
        try? await threads.shutdownGracefully()
    }

    /// The value librdkafka uses for `property` (set or default); nil for an unknown property.
    func configurationValue(_ property: String) -> String? {
        rd_kafka_conf(handle).flatMap { NativeConfiguration.value(of: property, in: $0) }
    }

    /// Frees the handle, which nothing uses any more: a closed client's threads have stopped,
    /// and a loop holds its client until the close (so a producer released without a close is
    /// never freed: see ``KafkaProducer``). A client released without a close (a bug of its
    /// owner) is not closed here: it leaves its group only by the session timeout, and its idle
    /// threads stay until the process ends.
    deinit {
        if !isClosed {
            logger.error("a Kafka client was released without close(); it was not closed")
        }
        rd_kafka_destroy_flags(handle, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE)
        retainedContext.release()
    }
}

extension KafkaClient where State == ClientLifecycle<NativeHandle> {
    /// A producer or an admin client, with a state of its own.
    convenience init(role: Role, properties: [String: String], context: ClientContext, threadCount: Int = 1) throws {
        try self.init(
            role: role, properties: properties, context: context, state: NIOLockedValueBox(ClientLifecycle()),
            threadCount: threadCount)
    }

    /// Begins closing; false when a close began before (the caller then has nothing to do).
    func beginClose() -> Bool {
        state.withLockedValue { $0.beginClose() } == .close
    }
}

extension Logger.Level {
    /// The level of an error librdkafka's error callback reports: fatal ones critical; failed
    /// authentication and TLS, which retrying rarely mends, errors; the rest (TCP connections
    /// refused or lost, all brokers down) warnings, as librdkafka retries them.
    init(clientError error: KafkaError) {
        self =
            switch error.code {
            case .fatal: .critical
            case .authentication, .tls, .saslAuthenticationFailed: .error
            default: .warning
            }
    }

    /// Maps a syslog level (librdkafka's log levels) to a swift-log level.
    init(syslog level: Int32) {
        switch level {
        case ...2: self = .critical
        case 3: self = .error
        case 4: self = .warning
        case 5: self = .notice
        case 6: self = .info
        default: self = .debug
        }
    }
}

extension String {
    /// Decodes a NUL-terminated C buffer.
    init(cBuffer: [CChar]) {
        self.init(decoding: cBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
