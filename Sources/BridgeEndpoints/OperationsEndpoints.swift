import BridgeConfig
import BridgeWorker
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// The worker's HTTP endpoints for operators, served with Hummingbird:
/// - `/metrics`: every metric in the registry, in Prometheus' text format;
/// - `/healthz`: 200 while the worker's loop turns (``WorkerHealth/stuckAfter``), else 503;
/// - `/readyz`: 200 once partitions are assigned and their state restored, else 503 saying why.
public struct OperationsEndpoints: Service {
    let address: HTTPAddress
    let registry: PrometheusCollectorRegistry
    let health: WorkerHealth
    let logger: Logger

    /// Endpoints on `address` for `registry` and `health`.
    public init(address: HTTPAddress, registry: PrometheusCollectorRegistry, health: WorkerHealth, logger: Logger) {
        self.address = address
        self.registry = registry
        self.health = health
        self.logger = logger
    }

    /// Serves until graceful shutdown; throws when the address cannot be bound.
    public func run() async throws {
        let address = self.address
        let logger = self.logger
        let application = Application(
            router: router,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
            onServerRunning: { channel in
                // The bound port, which differs from the configured one when that is 0.
                logger.info("http endpoints listening", metadata: [
                    "address": "\(HTTPAddress(host: address.host, port: channel.localAddress?.port ?? address.port))",
                    "paths": "/metrics /healthz /readyz",
                ])
            },
            logger: logger
        )
        try await application.run()
    }

    private var router: Router<BasicRequestContext> {
        let router = Router()
        let registry = self.registry
        let health = self.health
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
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
        return router
    }
}

private func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
    Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
}
