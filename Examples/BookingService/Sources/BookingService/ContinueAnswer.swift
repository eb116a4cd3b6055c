import Hummingbird
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue`, so a client that waits for it before
/// sending its body does not wait in vain (Hummingbird sends none; such a client would get no
/// answer at all before the request deadline closed the connection).
///
/// Not when the announced body is larger than ``HTTPInput/maxBodyBytes`` (the 413 comes at once
/// instead), nor while an earlier request on the connection is still being answered (the 100
/// would land among that answer's parts; the client sends its body after its own wait).
final class ContinueAnswer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests read and not yet answered (their response's end not yet written).
    private var unanswered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            let length = HTTPInput.announcedLength(request.headerFields[.contentLength]) ?? 0
            if unanswered == 0, request.headerFields[.expect]?.lowercased() == "100-continue",
                length <= HTTPInput.maxBodyBytes
            {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            unanswered += 1
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }
}
