import NIOCore
import NIOHTTPTypes

/// Keeps its connection's place in a ``ConnectionBudget``: counted in when active, busy from a
/// request's head until its response's end, stalled while the channel is unwritable (the client
/// takes none of the answers), counted out when closed.
final class ConnectionShedding: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let budget: ConnectionBudget
    private var ticket: ConnectionBudget.Ticket?

    init(budget: ConnectionBudget) {
        self.budget = budget
    }

    /// Hummingbird adds the handler to a connection that may already be active.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { countIn(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        countIn(context)
        context.fireChannelActive()
    }

    private func countIn(_ context: ChannelHandlerContext) {
        if ticket == nil { ticket = budget.opened(context.channel) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data), let ticket { budget.requestRead(ticket) }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if let ticket { budget.stalled(ticket, !context.channel.isWritable) }
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), let ticket { budget.requestAnswered(ticket) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        countOut()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        countOut()
    }

    private func countOut() {
        if let ticket { budget.closed(ticket) }
        ticket = nil
    }
}
