import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request is not whole (head to end) within `limit` of its head.
///
/// The idle timeout closes a connection that sends no whole part, which a trickled body does
/// every byte: without a deadline, one byte every few seconds keeps a request (and its
/// connection and file descriptor) open for hours. Bodies are at most 16 KiB, so an honest
/// client needs far less than the limit.
final class RequestDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private var timer: CloseTimer

    init(limit: TimeAmount) {
        timer = CloseTimer(limit: limit)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: timer.start(context)
        case .body: break
        case .end: timer.stop()
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer.stop()
    }
}
