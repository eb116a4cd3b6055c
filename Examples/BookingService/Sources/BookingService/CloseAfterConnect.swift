import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Closes the connection once a CONNECT request is answered (no route takes CONNECT: 405 or 404).
///
/// NIO writes a response to CONNECT without its body and without a length (after a 2xx the
/// connection would be a tunnel), and its parser reads nothing after a CONNECT; left open, the
/// connection would wait for the idle timeout while the client reads the answer to its end.
/// Responses come in request order, so each response head takes the oldest request's method.
final class CloseAfterConnect: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Whether each request not yet answered is a CONNECT, oldest first.
    private var isConnect: [Bool] = []
    private var closeAfterEnd = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) { isConnect.append(request.method == .connect) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where !isConnect.isEmpty && head.status.kind != .informational:
            if isConnect.removeFirst() {
                closeAfterEnd = true
                head.headerFields[.connection] = "close"
                return context.write(wrapOutboundOut(.head(head)), promise: promise)
            }
            context.write(data, promise: promise)
        case .end where closeAfterEnd:
            closeAfterEnd = false
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
        default:
            context.write(data, promise: promise)
        }
    }
}
