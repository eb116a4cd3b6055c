import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import SlotScheduler

/// Covers what hummingbird-websocket's upgrade handler (NIO's `NIOTypedHTTPServerUpgradeHandler`)
/// leaves uncovered while it decides on a connection's first request, before the service's
/// handlers are added (they are added only once it is known not to be an upgrade). It sits in
/// front of that handler from the connection's opening, so that with `--ocpp` a connection is
/// treated as without it:
///
/// - Counted in the ``ConnectionBudget``: idle (evictable) until its first head, busy from then
///   on. After a `101 Switching Protocols` a charge point's WebSocket stays busy (a flood of new
///   connections never closes it), evictable only while its client takes none of its frames.
/// - A deadline: a connection whose first request head is not read and decided on within `limit`
///   is closed, as the idle timeout and ``RequestDeadline`` close one later.
/// - A first request the HTTP parser cannot read: answered 400 with the JSON body
///   ``UnreadableRequestAnswer`` gives it, then closed (the upgrade handler never gets a request).
/// - A first request that asks for an upgrade NIO does not make (a refused WebSocket,
///   `Upgrade: h2c`): NIO drops its head and end; kept here, they are passed on again once the
///   service's handlers are there (``Decided``), so it is answered (by ``UpgradeFallback``).
///
/// At ``Decided`` it leaves the pipeline and ``ConnectionShedding`` counts the connection; after
/// a `101` it stays, passing the WebSocket's bytes and frames without reading them.
final class UpgradeWatch: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// The outbound event that ends the watch: the service's handlers are being added.
    struct Decided {
        /// Put first among the service's handlers: sends ``Decided`` to the watch once added.
        final class Placement: ChannelInboundHandler, RemovableChannelHandler {
            typealias InboundIn = Never

            func handlerAdded(context: ChannelHandlerContext) {
                context.triggerUserOutboundEvent(Decided(), promise: nil)
            }
        }
    }

    private var place: BudgetPlace
    private var timer: CloseTimer
    /// Whether the first request's end has been read: what comes after it is not read here
    /// (after an upgrade, raw bytes pass).
    private var firstRequestRead = false
    /// The first request's parts, when it asks for an upgrade.
    private var kept: [HTTPServerRequestPart] = []
    /// Whether a response was written: the deadline is over.
    private var answered = false

    init(limit: TimeAmount, budget: ConnectionBudget) {
        timer = CloseTimer(limit: limit)
        place = BudgetPlace(budget)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        opened(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context)
        context.fireChannelActive()
    }

    /// The connection counts, and its deadline runs, from the moment it is active.
    private func opened(_ context: ChannelHandlerContext) {
        guard context.channel.isActive, !timer.isRunning, !answered else { return }
        place.take(context.channel)
        timer.start(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !firstRequestRead {
            let part = unwrapInboundIn(data)
            switch part {
            case .head(let head):
                place.requestRead()
                if head.headers.contains(name: "upgrade") { kept = [part] }
            case .body: break
            case .end:
                firstRequestRead = true
                if !kept.isEmpty { kept.append(part) }
            }
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, !answered else { return context.fireErrorCaught(error) }
        answered = true
        timer.stop()
        let body = ByteBuffer(
            bytes: JSONBody.problemBytes(UnreadableRequestAnswer.error, status: .badRequest) ?? Data())
        var head = HTTPResponseHead(version: .http1_1, status: .badRequest)
        head.headers = [
            "Content-Type": "application/problem+json; charset=utf-8", "Content-Length": String(body.readableBytes),
            "Content-Language": MessageLanguage.english.rawValue, "Connection": "close",
        ]
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Decided else { return context.triggerUserOutboundEvent(event, promise: promise) }
        promise?.succeed()
        // The upgrade handler buffers these while the service's handlers are added, then passes
        // them on to them.
        for part in kept { context.fireChannelRead(wrapInboundOut(part)) }
        kept = []
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The first response ends the deadline: a `101` (what follows it is WebSocket frames,
        // never unwrapped here) or a refusal.
        if !answered {
            answered = true
            timer.stop()
        }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        place.writabilityChanged(context.channel)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closed()
    }

    private func closed() {
        timer.stop()
        place.giveBack()
    }
}
