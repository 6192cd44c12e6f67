import BridgeConfig
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// An HTTP proxy that serves `CONNECT` for Google's API hosts only, tunnelling each to the
/// gateway's own TLS listener, which terminates TLS for them with a certificate the app server
/// trusts. App servers reach the gateway through `HTTPS_PROXY` alone; every other host, and
/// every other method, is refused.
struct ConnectProxy: Sendable {
    /// The hosts a `CONNECT` may name, on port 443.
    static let apiHosts: Set<String> = ["fcm.googleapis.com", "iid.googleapis.com", "oauth2.googleapis.com"]
    /// How long a client may take to send its `CONNECT`.
    static let requestTimeout = TimeAmount.seconds(30)

    let address: HTTPAddress
    let logger: Logger

    /// Listens until graceful shutdown, tunnelling to `target`; `bound` learns the port.
    func run(tunnellingTo target: SocketAddress, bound: @Sendable (Int) -> Void) async throws {
        let logger = self.logger
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    let decoder = ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes))
                    let encoder = HTTPResponseEncoder()
                    try sync.addHandler(decoder)
                    try sync.addHandler(encoder)
                    try sync.addHandler(
                        ConnectHandler(target: target, decoder: decoder, encoder: encoder, logger: logger))
                }
            }
            .bind(host: address.host, port: address.port).get()
        bound(channel.localAddress?.port ?? address.port)
        logger.info(
            "connect proxy listening",
            metadata: [
                "address": "\(address.host):\(channel.localAddress?.port ?? address.port)",
                "hosts": "\(Self.apiHosts.sorted().joined(separator: " "))",
            ])
        try? await gracefulShutdown()
        try await channel.close()
    }
}

/// Reads one `CONNECT` request, answers it, and turns the connection into a tunnel.
private final class ConnectHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case waiting
        case requested(host: String)
        case connecting
    }

    private var state = State.waiting
    private let target: SocketAddress
    private let decoder: ByteToMessageHandler<HTTPRequestDecoder>
    private let encoder: HTTPResponseEncoder
    private let logger: Logger
    private var timeout: Scheduled<Void>?

    init(
        target: SocketAddress, decoder: ByteToMessageHandler<HTTPRequestDecoder>, encoder: HTTPResponseEncoder,
        logger: Logger
    ) {
        self.target = target
        self.decoder = decoder
        self.encoder = encoder
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        timeout = context.eventLoop.scheduleTask(in: ConnectProxy.requestTimeout) { channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head(let head), .waiting):
            guard head.method == .CONNECT else { return refuse(context, .methodNotAllowed) }
            let parts = head.uri.split(separator: ":")
            guard parts.count == 2, parts[1] == "443", ConnectProxy.apiHosts.contains(parts[0].lowercased()) else {
                logger.info("connect refused", metadata: ["target": "\(head.uri)"])
                return refuse(context, .forbidden)
            }
            state = .requested(host: String(parts[0]))
        case (.end, .requested(let host)):
            state = .connecting
            connect(context, host: host)
        default:
            break
        }
    }

    private func connect(_ context: ChannelHandlerContext, host: String) {
        ClientBootstrap(group: context.eventLoop).connect(to: target).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let tunnel):
                self.tunnel(context, to: tunnel)
            case .failure(let error):
                self.logger.warning(
                    "connect proxy cannot reach the gateway's listener",
                    metadata: ["error": "\(error)", "host": "\(host)"])
                self.refuse(context, .badGateway)
            }
        }
    }

    private func tunnel(_ context: ChannelHandlerContext, to tunnel: any Channel) {
        timeout?.cancel()
        let (local, remote) = TunnelGlue.pair()
        do {
            let pipeline = context.pipeline.syncOperations
            try tunnel.pipeline.syncOperations.addHandler(remote)
            try pipeline.addHandler(local)
            // Written past the encoder, which would frame a body: a 2xx to CONNECT has none, and
            // no Content-Length or Transfer-Encoding (RFC 9110, 9.3.6).
            pipeline.removeHandler(encoder, promise: nil)
            context.writeAndFlush(
                NIOAny(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
            // This handler goes before the decoder, whose removal hands the bytes it holds
            // beyond the request (a client's first TLS bytes) to the next handler: the tunnel.
            pipeline.removeHandler(context: context, promise: nil)
            pipeline.removeHandler(decoder, promise: nil)
        } catch {
            tunnel.close(promise: nil)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        context.fireChannelInactive()
    }

    /// Not HTTP, or bytes before the tunnel is open: the connection is closed.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        timeout?.cancel()
        context.close(promise: nil)
    }

    private func refuse(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Length", value: "0")
        headers.add(name: "Connection", value: "close")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}
