import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Gives a request that does not keep its connection alive (HTTP/1.0 without
/// `Connection: keep-alive`) the header `Connection: close`, which is what Hummingbird reads to
/// close the connection after the answer.
///
/// The HTTP/1 to HTTP types codec drops the version, so without this an HTTP/1.0 client (`ab`,
/// `curl --http1.0`) waited for the idle timeout to see the end of its answer. Added with the
/// service's other handlers through ``CodecFront``, which puts it in front of that codec, where the
/// version is known.
final class KeepAliveMark: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive else {
            return context.fireChannelRead(data)
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
