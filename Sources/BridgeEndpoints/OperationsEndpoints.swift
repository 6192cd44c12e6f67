import BridgeConfig
import BridgeHealth
import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import Synchronization

/// The worker's HTTP endpoints for operators, served with Hummingbird:
/// - `/metrics`: every metric in the registry, and the process's own (``ProcessMetrics``), in
///   Prometheus' text format;
/// - `/healthz`: 200 while the worker's loop turns (``WorkerHealth/stuckAfter``), else 503;
/// - `/readyz`: 200 once partitions are assigned and their state restored, else 503 saying why;
/// - `/state/devices/{token}/topics` (a worker's): the device's topics, 200 from the worker that
///   holds its state partition, 421 from the others, 503 when the loop does not answer in time.
public struct OperationsEndpoints: Service {
    let address: HTTPAddress
    /// Where `address` was configured, named in the error when it cannot be listened on.
    let field: String
    let registry: PrometheusCollectorRegistry
    let health: WorkerHealth
    let queries: StateQueries?
    let process: ProcessMetrics
    let logger: Logger

    /// Endpoints on `address`, configured as `field`, for `registry` and `health`.
    public init(
        address: HTTPAddress, field: String = "http.listen", registry: PrometheusCollectorRegistry,
        health: WorkerHealth, queries: StateQueries? = nil, logger: Logger
    ) {
        self.address = address
        self.field = field
        self.registry = registry
        self.health = health
        self.queries = queries
        self.process = ProcessMetrics(registry: registry)
        self.logger = logger
    }

    /// Serves until graceful shutdown. Throws a ``ConfigurationError`` naming the field and the
    /// address when the address cannot be listened on (in use, not this host's).
    public func run() async throws {
        let address = self.address
        let logger = self.logger
        let listening = Atomic(false)
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                listening.store(true, ordering: .relaxed)
                // The bound port, which differs from the configured one when that is 0.
                logger.info(
                    "http endpoints listening",
                    metadata: [
                        "address":
                            "\(HTTPAddress(host: address.host, port: channel.localAddress?.port ?? address.port))",
                        "paths": "/metrics /healthz /readyz",
                    ])
            },
            logger: logger
        )
        do {
            try await application.run()
        } catch  where !listening.load(ordering: .relaxed) {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw ConfigurationError(field: field, "cannot listen on \(address): \(reason)")
        }
    }

    /// How long a question waits for the loop: longer than a turn, shorter than a client's patience.
    static let queryTimeout = Duration.seconds(5)

    private var router: Router<BasicRequestContext> {
        let router = Router()
        let registry = self.registry
        let health = self.health
        let process = self.process
        router.get("metrics") { _, _ in
            process.update()
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        router.get("healthz") { _, _ in
            let since = health.sinceLastTurn
            return health.isAlive
                ? text(.ok, "ok: the loop turned \(since) ago\n")
                : text(.serviceUnavailable, "stuck: the loop has not turned for \(since)\n")
        }
        router.get("readyz") { _, _ in
            let readiness = health.readinessState
            return readiness == .ready ? text(.ok, "ready\n") : text(.serviceUnavailable, "not ready: \(readiness)\n")
        }
        if let queries {
            router.get("state/devices/:token/topics") { _, context in
                guard let token = try context.parameters.require("token").removingPercentEncoding else {
                    return text(.badRequest, "the token is not percent-encoded\n")
                }
                return DeviceTopicsAnswer(await queries.topics(of: token, timeout: Self.queryTimeout)).response
            }
        }
        return router
    }
}

func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
    Response(
        status: status, headers: [.contentType: "text/plain; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: body)))
}
