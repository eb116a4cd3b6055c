import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// hummingbird-websocket's HTTP/1.1 channel with an ``UpgradeWatch`` in front of its upgrade
/// handler: until the first request is decided on, the connection is counted, timed and answered
/// as without `--ocpp`.
struct UpgradeGuardedChannel: ServerChildChannel {
    let inner: HTTP1WebSocketUpgradeChannel
    let headDeadline: TimeAmount
    let budget: ConnectionBudget

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1WebSocketUpgradeChannel.Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let upgrader = try pipeline.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try pipeline.addHandler(UpgradeWatch(limit: headDeadline, budget: budget), position: .before(upgrader))
            return value
        }
    }

    func handle(value: HTTP1WebSocketUpgradeChannel.Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
