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
///   subprotocol, for a method other than GET or with a body, each with the JSON problem body every error has.
/// - A WebSocket upgrade of `/ocpp/{stationId}` without a `Sec-WebSocket-Key`, or with a version
///   other than 13: the upgrader passes it on as a plain request, and the routes' answer (a
///   404) is replaced by 400, or 426 with `Sec-WebSocket-Version: 13` (RFC 6455, 4.4).
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
    /// Whether the refusal's answer replaces the routes' (not the upgrader's bare 400), and the
    /// body parts of the answer replaced, which are dropped.
    private var replacing = false
    private var dropping = false
    private var answer = BareAnswer()

    init(admission: ChargerAdmission) {
        self.admission = admission
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var request) = unwrapInboundIn(data), request.headerFields[.upgrade] != nil else {
            return context.fireChannelRead(data)
        }
        if Self.asksForWebSocket(request) {
            if case .refuse(let refusal) = admission.decide(request) { self.refusal = refusal }
        } else if Self.namesWebSocket(request), ChargerAdmission.station(inPath: request.path ?? "") != nil {
            // No key or another version: the upgrader passed it on, so the routes answer it (a
            // 404), and that answer is replaced by the handshake's refusal (400 or 426).
            refusal = ChargerAdmission.handshakeRefusal(request)
            replacing = refusal != nil
        }
        request.headerFields[.upgrade] = nil
        context.fireChannelRead(wrapInboundOut(.head(request)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(var head) = part, let refusal,
            replacing || (head.status == .badRequest && head.headerFields[.contentType] == nil),
            answer.fill(&head, with: refusal.detail, status: refusal.status)
        {
            self.refusal = nil
            (dropping, replacing) = (replacing, false)
            if let challenge = refusal.challenge { head.headerFields[.wwwAuthenticate] = challenge }
            if refusal.versionOffered { head.headerFields[.secWebSocketVersion] = "13" }
            return context.write(wrapOutboundOut(.head(head)), promise: promise)
        }
        if case .body = part, dropping {
            promise?.succeed(())
            return
        }
        if case .end = part {
            dropping = false
            if let body = answer.takeBody() { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        }
        context.write(data, promise: promise)
    }

    /// A request whose `Upgrade` names `websocket`.
    static func namesWebSocket(_ request: HTTPRequest) -> Bool {
        let upgrade = request.headerFields[values: .upgrade].joined(separator: ",").lowercased()
        return upgrade.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "websocket" }
    }

    /// A request the WebSocket upgrader considers: `Upgrade: websocket` with a key and version 13.
    static func asksForWebSocket(_ request: HTTPRequest) -> Bool {
        namesWebSocket(request) && request.headerFields[.secWebSocketKey] != nil
            && request.headerFields[.secWebSocketVersion] == "13"
    }
}
