import ArgumentParser
import BridgeConfig
import BridgeCore
import BridgeEndpoints
import BridgeGateway
import BridgeHealth
import BridgeWorker
import Crypto
import FCMTranslation
import Foundation
import Kafka
import Logging
import NIOCore
import NIOSSL
import Prometheus
import ServiceLifecycle

/// `fcm-bridge gateway`: FCM's HTTP server API in front of the bridge, so that an app server
/// using an Admin SDK moves to it by configuration alone.
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Serve FCM's HTTP v1 API and Google's token endpoint, producing to the bridge's topics.",
        discussion: """
            Serves POST /v1/projects/P/messages:send, the v1 topic management \
            (/v1/projects/P/registrations/TOKEN/topicSubscriptions), Instance ID's /iid/v1:batchAdd and \
            :batchRemove, and POST /token (the OAuth 2.0 JWT bearer grant of service accounts) over HTTPS \
            with HTTP/2 and HTTP/1.1. Each request is answered once its record is on the broker. \
            --proxy-listen serves CONNECT for fcm.googleapis.com, iid.googleapis.com and \
            oauth2.googleapis.com, so an app server reaches the gateway through HTTPS_PROXY and a trusted CA.

            Access tokens are signed with the secret in FCM_BRIDGE_GATEWAY_TOKEN_SECRET (at least 32 \
            bytes; the same on every gateway of a fleet), or with a random one per process.
            """
    )

    /// The environment variable holding the access tokens' signing secret.
    static let secretVariable = "FCM_BRIDGE_GATEWAY_TOKEN_SECRET"

    @OptionGroup var options: ConfigurationOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: "Where the HTTPS API listens (host:port).")
    var listen = "0.0.0.0:8443"

    @Option(help: "Where the CONNECT proxy listens (host:port), or off.")
    var proxyListen = "0.0.0.0:3128"

    @Option(help: "Where /metrics, /healthz and /readyz listen (host:port), or off.")
    var httpListen = "0.0.0.0:9092"

    @Option(help: "The PEM certificate chain of the HTTPS listener (for fcm.googleapis.com and the gateway's name).")
    var tlsCertificate: String

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String

    @Option(help: "The service accounts file: each account's email, projects and public keys.")
    var accounts: String

    @Option(help: "A token_uri the service-account files name: the audience their assertions must have (repeatable).")
    var tokenURI: [String] = ["https://oauth2.googleapis.com/token"]

    @Option(
        help:
            "A worker's operations endpoint (host:port, repeatable; a host may name many, as a headless Service does), asked for devices' topics."
    )
    var workers: [String] = []

    @Option(help: "Requests per second per service account before 429 QUOTA_EXCEEDED; 0 for no limit.")
    var rateLimit = 10_000

    @Option(help: "The largest request body, in bytes.")
    var maxBodyBytes = 65_536

    @Option(help: "The most connections open at once.")
    var maxConnections = 20_000

    @Option(help: "Seconds an idle connection stays open.")
    var idleTimeout = 120

    func validate() throws {
        for (name, value) in [("--listen", listen), ("--proxy-listen", proxyListen), ("--http-listen", httpListen)] {
            guard (name != "--listen" && value == "off") || HTTPAddress(parsing: value) != nil else {
                throw ValidationError(
                    "\(name) must be host:port\(name == "--listen" ? "" : " or off"), got \"\(value)\"")
            }
        }
        // The proxy reaches the API listener at its address: an IP, not a name.
        if proxyListen != "off", let api = HTTPAddress(parsing: listen),
            (try? SocketAddress(ipAddress: api.host, port: 0)) == nil
        {
            throw ValidationError(
                "--listen must name an IP address (0.0.0.0, ::, 10.0.0.5) when --proxy-listen is on, got \"\(listen)\"")
        }
        for worker in workers where HTTPAddress(parsing: worker) == nil {
            throw ValidationError("--workers must be host:port, got \"\(worker)\"")
        }
        guard rateLimit >= 0 else { throw ValidationError("--rate-limit must be 0 or more, got \(rateLimit)") }
        // A body is a record: no larger than a broker takes by default (message.max.bytes).
        guard (1024...1_000_000).contains(maxBodyBytes) else {
            throw ValidationError("--max-body-bytes must be 1024 to 1000000, got \(maxBodyBytes)")
        }
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard (1...86_400).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be 1 to 86400") }
    }

    func run() async throws {
        let (configuration, logger) = try options.load(logging: logging, label: "fcm-bridge.gateway")
        let accounts: ServiceAccounts
        let tls: TLSConfiguration
        do {
            accounts = try ServiceAccounts(file: self.accounts)
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(tlsCertificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: tlsKey, format: .pem)))
            configuration.minimumTLSVersion = .tlsv12
            tls = configuration
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(2)
        }
        let registry = PrometheusCollectorRegistry()
        let health = WorkerHealth()
        var producerConfiguration = KafkaProducerConfiguration(kafka: configuration.kafkaClients)
        // A request waits for its record: past this, it is answered 503, which the SDKs retry.
        producerConfiguration.messageTimeout = .seconds(30)
        // Each answer waits for its batch: linger less than the workers (which do not wait on it).
        producerConfiguration.linger = .milliseconds(1)
        try await withKafkaProducer(configuration: producerConfiguration, logger: logger) { producer in
            let routes = GatewayRoutes(
                authority: await TokenAuthority(
                    accounts: accounts, audiences: Set(tokenURI), secret: try secret(logger: logger)),
                intake: SendIntake(
                    translator: APNsTranslator(
                        bundleID: configuration.bundleID, payloadLimit: configuration.payloadLimit)),
                producer: producer,
                topics: .init(send: configuration.topics.send, subscriptions: configuration.topics.subscriptions),
                maximumBodyBytes: maxBodyBytes, rates: SendRates(perSecond: rateLimit == 0 ? nil : rateLimit),
                metrics: GatewayMetrics(factory: PrometheusMetricsFactory(registry: registry)),
                owners: workers.isEmpty ? nil : StateOwners(workers: workers.compactMap(HTTPAddress.init(parsing:))),
                logger: logger)
            let gateway = Gateway(
                routes: routes,
                listeners: .init(
                    api: HTTPAddress(parsing: listen) ?? HTTPAddress(host: "0.0.0.0", port: 8443),
                    proxy: HTTPAddress(parsing: proxyListen), tls: tls, maximumConnections: maxConnections,
                    idleTimeout: .seconds(idleTimeout)),
                health: health, logger: logger)
            var services: [any Service] = [gateway]
            if let address = HTTPAddress(parsing: httpListen) {
                // First, so that it stops last: /readyz says "stopping" while requests drain.
                services.insert(
                    OperationsEndpoints(
                        address: address, field: "--http-listen", registry: registry, health: health, logger: logger),
                    at: 0)
            }
            logger.info(
                "gateway starting",
                metadata: [
                    "accounts": "\(accounts.accounts.count)", "send_topic": "\(configuration.topics.send)",
                    "subscriptions_topic": "\(configuration.topics.subscriptions)",
                    "token_uris": "\(tokenURI.joined(separator: " "))", "workers": "\(workers.joined(separator: " "))",
                ])
            let group = ServiceGroup(
                configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        }
    }

    /// The access tokens' signing secret: the environment's, or a random one (tokens then work on
    /// this process only).
    private func secret(logger: Logger) throws -> [UInt8] {
        if let text = ProcessInfo.processInfo.environment[Self.secretVariable] {
            guard text.utf8.count >= 32 else {
                logger.critical("cannot start: \(Self.secretVariable) must hold at least 32 bytes")
                throw ExitCode(2)
            }
            return Array(text.utf8)
        }
        logger.warning(
            "\(Self.secretVariable) is not set: access tokens are signed with a random secret and only this process accepts them"
        )
        return Array(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }
}
