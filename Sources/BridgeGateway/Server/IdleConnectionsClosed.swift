import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore

/// Hummingbird's TLS connections (HTTP/2 or HTTP/1.1 by ALPN), closed when nothing has been read
/// from them for `idleTimeout`: from the first byte on, so that a connection that never
/// completes its TLS handshake is closed too (Hummingbird's own idle timeouts start after it).
struct IdleConnectionsClosed: ServerChildChannel {
    typealias Value = HTTP2UpgradeChannel.Value

    let upgrade: HTTP2UpgradeChannel
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout))
            try pipeline.addHandler(CloseWhenIdle())
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return upgrade.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await upgrade.handle(value: value, logger: logger)
    }
}

/// Closes the connection on the idle event of the `IdleStateHandler` before it.
private final class CloseWhenIdle: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
