import Foundation
import Hummingbird
import NIOCore
import NIOHTTPTypes
import SlotScheduler

/// What a request that asks for an upgrade, and is not upgraded, gets with `--ocpp`: the same
/// as without it, or a refusal's own answer.
///
/// - A refused WebSocket upgrade: hummingbird-websocket answers every upgrade its
///   `shouldUpgrade` declines with the same bare 400 (no body) and closes the connection. The
///   request passes through the service's handlers first (``UpgradeWatch``), so this one reads
///   it, decides again with ``ChargerAdmission`` (the decision reads the request only), and
///   rewrites that 400: 401 with a Basic challenge, 404 off `/ocpp/`, 400 without the
///   subprotocol, each with the JSON problem body every error has.
/// - Any other request: its `Upgrade` header is dropped before the routes, so it is answered as
///   if it had not asked, as without `--ocpp` (``CloseAfterUpgrade``, before this, has marked
///   the connection to close after the answer). hummingbird-websocket's responder would answer
///   `Upgrade: websocket` with a redirect to the same path, a loop for a request whose upgrade
///   was refused already.
final class UpgradeFallback: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let admission: ChargerAdmission
    private var refusal: ChargerRefusal?
    private var answer = BareAnswer()

    init(admission: ChargerAdmission) {
        self.admission = admission
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var request) = unwrapInboundIn(data), request.headerFields[.upgrade] != nil else {
            return context.fireChannelRead(data)
        }
        if Self.asksForWebSocket(request), case .refuse(let refusal) = admission.decide(request) {
            self.refusal = refusal
        }
        request.headerFields[.upgrade] = nil
        context.fireChannelRead(wrapInboundOut(.head(request)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(var head) = part, let refusal, head.status == .badRequest,
            head.headerFields[.contentType] == nil, answer.fill(&head, with: refusal.detail, status: refusal.status)
        {
            self.refusal = nil
            if let challenge = refusal.challenge { head.headerFields[.wwwAuthenticate] = challenge }
            return context.write(wrapOutboundOut(.head(head)), promise: promise)
        }
        if case .end = part, let body = answer.takeBody() { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.write(data, promise: promise)
    }

    /// A request the WebSocket upgrader considers: `Upgrade: websocket` with a key and version 13.
    static func asksForWebSocket(_ request: HTTPRequest) -> Bool {
        let upgrade = request.headerFields[values: .upgrade].joined(separator: ",").lowercased()
        return upgrade.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "websocket" }
            && request.headerFields[.secWebSocketKey] != nil && request.headerFields[.secWebSocketVersion] == "13"
    }
}
