import NIOCore

/// Ends a connection the way HTTP/1.1 servers do when the client may still be sending (a 413
/// whose body was not read, an answer to CONNECT or an upgrade): the answer is flushed, the
/// sending side is shut (the client sees the end after the answer), and what the client still
/// sends is read and dropped for a while before the connection closes.
///
/// Closing at once instead resets a connection whose unread bytes are still arriving: the client,
/// still writing its body, gets a broken pipe or a reset and never reads the 413 (measured with
/// Python's `http.client` and a 1 MB body). It sits first in the pipeline, in front of the HTTP
/// decoder, so that the dropped bytes are never parsed; ``CloseAfterUpgrade`` starts it with
/// ``Start`` once the answer's last part is written.
final class LingeringClose: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The outbound event that starts the lingering close.
    struct Start {}

    /// How long the client may go on sending after the answer.
    let limit: TimeAmount
    /// How many bytes it may send in that time (a client that sends more is cut off).
    let maxBytes: Int

    private var lingering = false
    private var dropped = 0
    private var deadline: CloseTimer

    init(limit: TimeAmount = .seconds(2), maxBytes: Int = 64 << 20) {
        self.limit = limit
        self.maxBytes = maxBytes
        deadline = CloseTimer(limit: limit)
    }

    /// Put among the service's handlers (after the codec): adds a ``LingeringClose`` first in the
    /// pipeline, where bytes arrive before they are parsed.
    final class Placement: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never

        func handlerAdded(context: ChannelHandlerContext) {
            try? context.pipeline.syncOperations.addHandler(LingeringClose(), position: .first)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Start else { return context.triggerUserOutboundEvent(event, promise: promise) }
        promise?.succeed()
        guard !lingering else { return }
        lingering = true
        deadline.start(context)
        // Shut the sending side once what was written is out; a socket that cannot half-close
        // closes whole.
        let channel = context.channel
        context.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard lingering else { return context.fireChannelRead(data) }
        dropped += unwrapInboundIn(data).readableBytes
        if dropped > maxBytes { context.close(promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard lingering else { return context.fireChannelReadComplete() }
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline.stop()
        context.fireChannelInactive()
    }
}
