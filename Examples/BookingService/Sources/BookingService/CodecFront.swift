import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Put among the service's handlers, which Hummingbird adds after its HTTP/1 to HTTP types
/// codec (where the request's version is no longer seen): adds `handlers` in front of that
/// codec, in order, where each sees the whole HTTP/1 head (``KeepAliveMark``, ``HeadCheck``).
/// It passes every request part on unchanged: NIO takes only handlers of inbound or outbound
/// parts.
final class CodecFront: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private var handlers: [any ChannelHandler]

    init(_ handlers: [any ChannelHandler]) { self.handlers = handlers }

    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return }
        for handler in handlers { try? pipeline.addHandler(handler, position: .before(codec)) }
        handlers = []
    }
}
