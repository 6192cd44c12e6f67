import BridgeConfig
import BridgeHealth
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// `fcm-bridge gateway`: FCM's server API over HTTPS (HTTP/2 and HTTP/1.1 by ALPN), and the
/// `CONNECT` proxy that brings app servers to it through `HTTPS_PROXY`.
public struct Gateway: Service {
    /// Where and how the gateway listens.
    public struct Listeners: Sendable {
        /// The HTTPS listener.
        public var api: HTTPAddress
        /// The `CONNECT` proxy's listener; nil for none.
        public var proxy: HTTPAddress?
        /// The certificate chain and key of the HTTPS listener: for Google's API hosts, and for
        /// the gateway's own name, signed by a CA the app servers trust.
        public var tls: TLSConfiguration
        /// The most connections open at once; more wait in the backlog.
        public var maximumConnections: Int
        /// How long a connection may be idle before it is closed.
        public var idleTimeout: Duration

        public init(
            api: HTTPAddress, proxy: HTTPAddress?, tls: TLSConfiguration, maximumConnections: Int,
            idleTimeout: Duration
        ) {
            self.api = api
            self.proxy = proxy
            self.tls = tls
            self.maximumConnections = maximumConnections
            self.idleTimeout = idleTimeout
        }
    }

    let routes: GatewayRoutes
    let listeners: Listeners
    let health: WorkerHealth
    let logger: Logger
    /// Told each listener's bound port: the API's, then the proxy's.
    let bound: @Sendable (_ api: Int, _ proxy: Int?) -> Void

    /// A gateway serving `routes` on `listeners`.
    public init(
        routes: GatewayRoutes, listeners: Listeners, health: WorkerHealth, logger: Logger,
        bound: @escaping @Sendable (_ api: Int, _ proxy: Int?) -> Void = { _, _ in }
    ) {
        self.routes = routes
        self.listeners = listeners
        self.health = health
        self.logger = logger
        self.bound = bound
    }

    /// Serves until graceful shutdown: requests in flight are answered first.
    public func run() async throws {
        let (ports, announce) = AsyncStream.makeStream(of: Int.self)
        let listeners = self.listeners
        let logger = self.logger
        let http2 = HTTP2UpgradeChannel.Configuration(
            idleTimeout: listeners.idleTimeout,
            streamConfiguration: .init(idleTimeout: .seconds(listeners.idleTimeout.components.seconds)))
        let application = Application(
            router: routes.router(),
            server: HTTPServerBuilder { responder in
                IdleConnectionsClosed(
                    upgrade: try HTTP2UpgradeChannel(
                        tlsConfiguration: listeners.tls, configuration: http2, responder: responder),
                    idleTimeout: .seconds(listeners.idleTimeout.components.seconds))
            },
            configuration: .init(
                address: .hostname(listeners.api.host, port: listeners.api.port), serverName: nil,
                // Room for a burst of new connections (a fleet of app servers restarting) while
                // each is set up: the kernel caps it at net.core.somaxconn.
                backlog: 4096,
                availableConnectionsDelegate: MaximumAvailableConnections(listeners.maximumConnections)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? listeners.api.port
                logger.info(
                    "gateway listening", metadata: ["address": "\(HTTPAddress(host: listeners.api.host, port: port))"])
                announce.yield(port)
                announce.finish()
            },
            logger: logger
        )
        let health = self.health
        let bound = self.bound
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                try await withGracefulShutdownHandler {
                    try await application.run()
                } onGracefulShutdown: {
                    health.set(.stopping)
                }
            }
            group.addTask {
                var apiPort: Int?
                for await port in ports { apiPort = port }
                guard let apiPort else { return }
                guard let proxy = listeners.proxy else {
                    bound(apiPort, nil)
                    health.set(.ready)
                    return
                }
                let target = try SocketAddress(ipAddress: Self.loopback(for: listeners.api.host), port: apiPort)
                try await ConnectProxy(address: proxy, logger: logger).run(tunnellingTo: target) { proxyPort in
                    bound(apiPort, proxyPort)
                    health.set(.ready)
                }
            }
            group.addTask {
                // The gateway's loop is its event loops: this says the process still schedules work.
                try? await cancelWhenGracefulShutdown {
                    while !Task.isCancelled {
                        health.turned()
                        try await Task.sleep(for: .seconds(5))
                    }
                }
            }
        }
        health.set(.stopping)
    }

    /// The address the proxy reaches the API listener at.
    static func loopback(for host: String) -> String {
        switch host {
        case "0.0.0.0", "": "127.0.0.1"
        case "::": "::1"
        default: host
        }
    }
}
