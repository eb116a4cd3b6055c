import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Closes the connection once a request that asks to switch protocols is answered: CONNECT (no
/// route takes it: 405 or 404) or one with an `Upgrade` header (answered as if it had not asked).
///
/// NIO's parser reads nothing after such a request (the bytes would belong to the new protocol),
/// so a next request on the connection would wait unanswered until the idle timeout; and NIO
/// writes a response to CONNECT without its body or a length, so a client reads it to the end of
/// the connection. Responses come in request order, so each final response head takes the oldest
/// request's flag. An answer whose head already says `Connection: close` (a 413, whose body was
/// never read) closes the connection the same way. The close lingers (``LingeringClose``).
final class CloseAfterUpgrade: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Whether each request not yet answered asks to switch protocols, oldest first.
    private var switches: [Bool] = []
    private var closeAfterEnd = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            switches.append(request.method == .connect || request.headerFields[.upgrade] != nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where !switches.isEmpty && head.status.kind != .informational:
            if switches.removeFirst() || head.headerFields[.connection] == "close" {
                closeAfterEnd = true
                head.headerFields[.connection] = "close"
                return context.write(wrapOutboundOut(.head(head)), promise: promise)
            }
            context.write(data, promise: promise)
        case .end where closeAfterEnd:
            closeAfterEnd = false
            // Once the answer is out: shut the sending side and drop what the client still sends
            // for a while (LingeringClose), so a client still sending reads the answer.
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            let pipeline = context.pipeline
            written.whenComplete { _ in pipeline.triggerUserOutboundEvent(LingeringClose.Start(), promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }
}
