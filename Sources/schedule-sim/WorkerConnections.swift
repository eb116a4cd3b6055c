#if AsyncHTTP
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SlotScheduler
import SlotSimulation

/// The workload's connections (the `AsyncHTTP` trait, an `http://` target): one kept-alive
/// HTTP/1.1 connection per worker, a request at a time, as `wrk` does. Each worker runs on its
/// connection's event loop (``executor(for:)``), so a request goes out and its answer resumes the
/// worker with no hop between threads and no pool between them: what AsyncHTTPClient spends per
/// request on its pool, its state machines and a timer each is not spent here.
///
/// A connection that fails, times out (no answer within `timeout`: each loop looks at its
/// connections once a second, rather than a timer or an idle handler per request) or is closed
/// by the target is dropped, and the worker's next request opens a new one; the request it was on has an unknown
/// outcome.
final class WorkerConnections: Sendable {
    let host: String
    let port: Int
    /// The target's path prefix (`http://host:port/api` → `/api`).
    let base: String
    let timeout: TimeAmount
    let loops: [any EventLoop]
    let executors: [LoopExecutor]
    /// Each worker's connection.
    let connections: [Slot]
    /// Each loop's look at its connections' waits, once a second.
    let sweeps: [RepeatedTask]

    /// A worker's connection, if one is open. `@unchecked Sendable`: its fields are read and
    /// written only on `loop` (``send(_:process:)`` submits there), as NIOLoopBound would check,
    /// but NIOLoopBound must be made on its loop and these are made before any runs.
    final class Slot: @unchecked Sendable {
        let loop: any EventLoop
        var channel: (any Channel)?
        var handler: AnswerHandler?
        /// When the request being answered was sent.
        var sent = NIODeadline.distantFuture

        init(loop: any EventLoop) { self.loop = loop }
    }

    /// `nil` for a target that is not `http://host[:port][/path]`.
    init?(target: String, workers: Int, timeout: TimeAmount = .seconds(30)) {
        guard let url = URLComponents(string: target), url.scheme == "http", let host = url.host, !host.isEmpty,
            url.query == nil
        else { return nil }
        self.host = host
        port = url.port ?? 80
        base = url.path.hasSuffix("/") ? String(url.path.dropLast()) : url.path
        self.timeout = timeout
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        self.loops = loops
        executors = loops.map(LoopExecutor.init)
        let connections = (0..<max(1, workers)).map { Slot(loop: loops[$0 % loops.count]) }
        self.connections = connections
        sweeps = loops.enumerated().map { k, loop in
            let mine = connections.enumerated().filter { $0.offset % loops.count == k }.map(\.element)
            return loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
                let late = NIODeadline.now() - timeout
                for slot in mine where slot.handler?.pending != nil && slot.sent < late { Self.drop(slot) }
            }
        }
    }

    /// The executor worker `process` runs on: its connection's event loop.
    func executor(for process: Int) -> LoopExecutor { executors[process % executors.count] }

    /// `rendered` sent on worker `process`'s connection.
    func send(_ rendered: RenderedRequest, process: Int) async -> TargetHTTP.Answer {
        let slot = connections[process % connections.count]
        // The worker runs on its connection's loop (``executor(for:)``): no hop to it.
        let answer =
            slot.loop.inEventLoop ? send(rendered, on: slot) : slot.loop.flatSubmit { self.send(rendered, on: slot) }
        guard let raw = try? await answer.get() else { return (nil, nil, nil) }
        let body = raw.body.flatMap { bytes -> JSONValue? in
            bytes.readableBytes == 0 ? nil : try? JSONValue(parsing: Array(bytes.readableBytesView))
        }
        return (raw.status, body, raw.date)
    }

    /// On the slot's loop: the connection (opened if none is), the request written, its answer.
    private func send(_ rendered: RenderedRequest, on slot: Slot) -> EventLoopFuture<AnswerHandler.Raw> {
        slot.loop.preconditionInEventLoop()
        if let channel = slot.channel, let handler = slot.handler, channel.isActive {
            return write(rendered, on: channel, handler, slot)
        }
        let handler = NIOLoopBound(AnswerHandler(), eventLoop: slot.loop)
        return ClientBootstrap(group: slot.loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(handler.value)
                }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .flatMap { channel in
                slot.channel = channel
                slot.handler = handler.value
                return self.write(rendered, on: channel, handler.value, slot)
            }
            .nonisolated()
    }

    /// On the channel's loop: the request written, and its answer. A connection whose answer
    /// closes it, or that failed, is closed by ``AnswerHandler``, and the next request opens another.
    private func write(_ rendered: RenderedRequest, on channel: any Channel, _ handler: AnswerHandler, _ slot: Slot)
        -> EventLoopFuture<AnswerHandler.Raw>
    {
        let promise = channel.eventLoop.makePromise(of: AnswerHandler.Raw.self)
        handler.pending = promise
        slot.sent = .now()
        var head = HTTPRequestHead(
            version: .http1_1, method: HTTPMethod(rawValue: rendered.method), uri: base + rendered.path)
        head.headers.add(name: "Host", value: "\(host):\(port)")
        for (name, value) in rendered.headers { head.headers.add(name: name, value: value) }
        if let body = rendered.body {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        } else {
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
        }
        // A request NIO will not send (a header its validation refuses) fails its answer at once.
        let written = channel.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenFailure { error in
            guard handler.pending?.futureResult === promise.futureResult else { return }
            handler.pending = nil
            promise.fail(error)
            channel.close(promise: nil)
        }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: written)
        return promise.futureResult
    }

    private static func drop(_ slot: Slot) {
        slot.channel?.close(promise: nil)
        slot.channel = nil
        slot.handler = nil
    }

    func shutdown() async {
        for sweep in sweeps { sweep.cancel() }
        for slot in connections {
            try? await slot.loop.submit { slot.channel?.close(promise: nil) }.get()
        }
    }
}

/// Reads one answer at a time on a worker's connection, into the request's promise.
final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    /// An answer's status, body and `Date` header, and whether the target closes the connection
    /// (a struct, not a tuple: a tuple's type is looked up at run time in generic code).
    struct Raw: Sendable {
        var status: Int
        var body: ByteBuffer?
        var date: String?
        var close: Bool
    }

    struct Gone: Error {}

    var pending: EventLoopPromise<Raw>?
    var answer: Raw?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            answer = Raw(
                status: Int(head.status.code), body: nil, date: head.headers.first(name: "Date"),
                close: !head.isKeepAlive)
        case .body(var bytes):
            if answer?.body == nil { answer?.body = bytes } else { answer?.body?.writeBuffer(&bytes) }
        case .end:
            guard let answer, let promise = pending else { return }
            self.answer = nil
            pending = nil
            if answer.close { context.close(promise: nil) }
            promise.succeed(answer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.fail(Gone())
        pending = nil
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { fail(context) }

    private func fail(_ context: ChannelHandlerContext) {
        pending?.fail(Gone())
        pending = nil
        context.close(promise: nil)
    }
}

/// An event loop as a task executor: a worker that prefers it runs on the loop's thread, where
/// its connection's answers arrive.
final class LoopExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
