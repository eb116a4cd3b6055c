import NIOCore

/// A connection's close, scheduled `limit` after ``start(_:)`` unless ``stop()`` comes first: the
/// one mechanism of the service's deadlines (``RequestDeadline``, ``WriteDeadline``).
struct CloseTimer {
    let limit: TimeAmount
    private var scheduled: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    var isRunning: Bool { scheduled != nil }

    /// Starts the countdown to closing `context`'s channel, from now (a running one is replaced).
    mutating func start(_ context: ChannelHandlerContext) {
        scheduled?.cancel()
        let channel = context.channel
        scheduled = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
    }

    mutating func stop() {
        scheduled?.cancel()
        scheduled = nil
    }
}
