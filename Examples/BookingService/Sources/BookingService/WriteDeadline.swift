import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client takes none of its output for `limit`: the channel stays
/// unwritable (NIO holds more unsent bytes than its high watermark, the kernel's buffers being
/// full) that long.
///
/// A client that pipelines requests and never reads the answers fills the kernel's buffers, then
/// NIO's, and Hummingbird's response writer waits for writability forever. Nothing else ends
/// that wait: the requests are whole (``RequestDeadline`` is done), a response is being written
/// (the idle timeout waits for its end), NIO has no write timeout, and the connection is busy
/// (``ConnectionBudget`` only closes it to make room while it is unwritable). Without a deadline,
/// the connection, its task and its buffered answers stay until restart, and `capacity` such
/// connections lock every other client out.
///
/// The channel turns unwritable only with the kernel's send buffer full and 64 KiB more queued
/// (NIO's default high watermark), more than one answer of this service (a few KiB; the OpenAPI
/// document, about 27 KiB), and writable again once the client has taken 32 KiB of that: an
/// honest client, even one reading slowly, is unwritable for well under the limit.
final class WriteDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private var timer: CloseTimer

    init(limit: TimeAmount) {
        timer = CloseTimer(limit: limit)
    }

    /// Hummingbird adds the handler to a connection that may already be active.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { follow(context) }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        follow(context)
        context.fireChannelWritabilityChanged()
    }

    /// Starts the deadline when the channel is unwritable (and it is not running yet); stops it
    /// when the channel is writable.
    private func follow(_ context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer.stop()
        } else if !timer.isRunning {
            timer.start(context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer.stop()
    }
}
