import NIOCore

/// One end of a tunnel between two channels: what one reads, the other writes, with the
/// slower side's writability pacing the faster side's reads, and a close on either closing both.
final class TunnelGlue: ChannelDuplexHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private var partner: TunnelGlue?
    private var context: ChannelHandlerContext?
    private var readWaiting = false

    private init() {}

    /// The two ends, joined.
    static func pair() -> (TunnelGlue, TunnelGlue) {
        let (first, second) = (TunnelGlue(), TunnelGlue())
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    /// Flushed at once: bytes handed on when the proxy's decoder is removed come with no
    /// read-complete to flush them.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.writeAndFlush(data, promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
        partner?.context?.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.resumeReading() }
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? false {
            context.read()
        } else {
            readWaiting = true
        }
    }

    private func resumeReading() {
        guard readWaiting, let context else { return }
        readWaiting = false
        context.read()
    }
}
