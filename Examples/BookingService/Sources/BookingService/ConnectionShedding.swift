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

    private var place: BudgetPlace

    init(budget: ConnectionBudget) {
        place = BudgetPlace(budget)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        place.take(context.channel)
    }

    func channelActive(context: ChannelHandlerContext) {
        place.take(context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { place.requestRead() }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        place.writabilityChanged(context.channel)
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { place.requestAnswered() }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        place.giveBack()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        place.giveBack()
    }
}
