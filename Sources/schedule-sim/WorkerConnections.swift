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
    /// The `Host` header every request sends.
    let hostHeader: String
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
        hostHeader = "\(host):\(port)"
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
                for slot in mine where slot.handler?.waiter != nil && slot.sent < late {
                    slot.handler?.resumeWithout("no answer within \(timeout.nanoseconds / 1_000_000_000) s")
                    Self.drop(slot)
                }
            }
        }
    }

    /// The executor worker `process` runs on: its connection's event loop.
    func executor(for process: Int) -> LoopExecutor { executors[process % executors.count] }

    /// `rendered` sent on worker `process`'s connection.
    func send(_ rendered: RenderedRequest, process: Int) async -> TargetHTTP.Answer {
        let slot = connections[process % connections.count]
        // The answer resumes the worker straight from the connection's handler: no promise, no
        // future and no callback list per request, as `EventLoopFuture.get()` would cost.
        let raw = await withUnsafeContinuation { (waiter: AnswerHandler.Waiter) in
            // The worker runs on its connection's loop (``executor(for:)``): no hop to it.
            if slot.loop.inEventLoop {
                send(rendered, on: slot, waiter)
            } else {
                slot.loop.execute { self.send(rendered, on: slot, waiter) }
            }
        }
        guard let raw else { return (nil, nil, nil, "the request cannot be sent") }
        if let failure = raw.failure { return (nil, nil, nil, failure) }
        let body = raw.body.flatMap { bytes -> JSONValue? in
            bytes.readableBytes == 0 ? nil : try? JSONValue(parsing: Array(bytes.readableBytesView))
        }
        return (raw.status, body, raw.date, nil)
    }

    /// On the slot's loop: the connection (opened if none is) and the request written; `waiter`
    /// resumed with its answer, or with `nil` when none comes.
    private func send(_ rendered: RenderedRequest, on slot: Slot, _ waiter: AnswerHandler.Waiter) {
        slot.loop.preconditionInEventLoop()
        guard let request = WireRequest(rendered, base: base, host: hostHeader) else {
            // What NIO's header validation refused before: the request is not sent, and the
            // connection it would have gone on is closed.
            Self.drop(slot)
            waiter.resume(returning: nil)
            return
        }
        if let channel = slot.channel, let handler = slot.handler, channel.isActive {
            write(request, on: channel, handler, slot, waiter)
            return
        }
        let handler = NIOLoopBound(AnswerHandler(), eventLoop: slot.loop)
        ClientBootstrap(group: slot.loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes))
                    try channel.pipeline.syncOperations.addHandlers(handler.value.writer, decoder, handler.value)
                }
            }
            .connect(host: host, port: port)
            .assumeIsolated()
            .whenComplete { result in
                // A connection closed before this ran has fired its `channelInactive` already.
                let channel: any Channel
                switch result {
                case .failure(let error): return waiter.resume(returning: .failed(TargetHTTP.failure(error)))
                case .success(let opened): channel = opened
                }
                guard channel.isActive else {
                    return waiter.resume(returning: .failed("the connection was closed before the answer"))
                }
                slot.channel = channel
                slot.handler = handler.value
                self.write(request, on: channel, handler.value, slot, waiter)
            }
    }

    /// On the channel's loop: the request written, `waiter` left for its answer. A connection
    /// whose answer closes it, or that failed, is closed by ``AnswerHandler``, and the next request
    /// opens another.
    private func write(
        _ request: WireRequest, on channel: any Channel, _ handler: AnswerHandler, _ slot: Slot,
        _ waiter: AnswerHandler.Waiter
    ) {
        handler.waiter = waiter
        slot.sent = .now()
        // The head goes through the response decoder so that it pairs the answer with a request
        // (and knows a `HEAD` has no body); ``RequestBytesWriter`` sends the request's bytes,
        // built in one buffer, in its place: one pass down the pipeline, one write.
        handler.writer.bytes = request.bytes
        channel.writeAndFlush(HTTPClientRequestPart.head(handler.head(request.method)), promise: nil)
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

/// A request as its bytes on the wire (HTTP/1.1), built in one buffer: what NIO's request encoder
/// and header validation cost per request, a pipeline step each and a buffer for the head and
/// another for the end, is a few string copies here. `nil` for a request NIO's validation would
/// refuse (a method, path, header name or value with bytes HTTP does not allow).
struct WireRequest {
    let method: HTTPMethod
    let bytes: ByteBuffer

    private static let allocator = ByteBufferAllocator()

    init?(_ rendered: RenderedRequest, base: String, host: String) {
        let method = HTTPMethod(rawValue: rendered.method)
        guard Self.isToken(rendered.method), Self.isTarget(base), Self.isTarget(rendered.path),
            rendered.headers.allSatisfy({ Self.isToken($0.0) && Self.isFieldValue($0.1) })
        else { return nil }
        self.method = method
        var bytes = Self.allocator.buffer(capacity: 256 + (rendered.body?.count ?? 0))
        bytes.writeString(rendered.method)
        bytes.writeStaticString(" ")
        bytes.writeString(base)
        bytes.writeString(rendered.path)
        bytes.writeStaticString(" HTTP/1.1\r\nHost: ")
        bytes.writeString(host)
        bytes.writeStaticString("\r\n")
        for (name, value) in rendered.headers where !Self.isFraming(name) {
            bytes.writeString(name)
            bytes.writeStaticString(": ")
            bytes.writeString(value)
            bytes.writeStaticString("\r\n")
        }
        // The body's length frames it. A POST, PUT or PATCH without a body says it has none
        // (NIO's encoder sent it as an empty chunked body, which not every small server reads).
        switch (rendered.body, method) {
        case (let body?, _):
            bytes.writeString("Content-Length: \(body.count)\r\n\r\n")
            bytes.writeBytes(body)
        case (nil, .POST), (nil, .PUT), (nil, .PATCH): bytes.writeStaticString("Content-Length: 0\r\n\r\n")
        case (nil, _): bytes.writeStaticString("\r\n")
        }
        self.bytes = bytes
    }

    /// `Content-Length` and `Transfer-Encoding` are the request's own (``init(_:base:host:)``): an
    /// adapter's are left out (NIO's encoder replaced or removed them for a request with a body,
    /// and kept them on a `GET` or `DELETE`, where they could only mislead the target).
    private static func isFraming(_ name: String) -> Bool {
        name.utf8.count == 14 && name.lowercased() == "content-length"
            || name.utf8.count == 17 && name.lowercased() == "transfer-encoding"
    }

    /// RFC 9110's `token`, as NIO checks a method and a header's name.
    static func isToken(_ text: String) -> Bool { consists(of: text, alphanumericsAnd: "!#$%&'*+-.^_`|~") }

    /// A header's value: no control bytes but tab, as NIO checks it.
    static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == UInt8(ascii: "\t") || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// The bytes RFC 3986 allows in a request's target, as NIO checks it.
    static func isTarget(_ text: String) -> Bool { Adapter.isRequestTarget(text) }

    /// Whether every byte of `text` is an ASCII letter or digit or one of `punctuation`'s.
    private static func consists(of text: String, alphanumericsAnd punctuation: String) -> Bool {
        text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            default: punctuation.utf8.contains(byte)
            }
        }
    }
}

/// Sends a ``WireRequest``'s bytes in place of its head, which is there for the response decoder
/// above it (a body or end part, which no request here sends, is dropped).
final class RequestBytesWriter: ChannelOutboundHandler {
    typealias OutboundIn = HTTPClientRequestPart
    typealias OutboundOut = IOData

    /// The bytes of the request whose head comes next.
    var bytes: ByteBuffer?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head = unwrapOutboundIn(data), let bytes else {
            promise?.succeed()
            return
        }
        self.bytes = nil
        context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: promise)
    }
}

/// Reads one answer at a time on a worker's connection, and resumes the worker waiting for it.
final class AnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    /// A worker waiting for its answer: resumed with it, or with `nil` when the connection failed
    /// or closed first.
    typealias Waiter = UnsafeContinuation<Raw?, Never>

    /// An answer's status, body and `Date` header, and whether the target closes the connection
    /// (a struct, not a tuple: a tuple's type is looked up at run time in generic code).
    struct Raw: Sendable {
        var status: Int
        var body: ByteBuffer?
        var date: String?
        var close: Bool
        /// Why there is no answer to use, when the connection was dropped for it.
        var failure: String? = nil

        /// No answer, for `failure`.
        static func failed(_ failure: String) -> Raw { Raw(status: 0, date: nil, close: true, failure: failure) }
    }

    /// The most of an answer's body kept, as the reads' client (`TargetHTTP.readClient`): a
    /// larger answer drops the connection and leaves its operation's outcome unknown, so an
    /// endless body cannot fill memory.
    static let maxBodyBytes = 16 << 20

    var waiter: Waiter?
    var answer: Raw?
    /// The connection's writer, which sends each request's bytes.
    let writer = RequestBytesWriter()
    /// The last request head given to the response decoder: most requests on a connection share
    /// their method, and the decoder reads nothing else.
    private var lastHead = HTTPRequestHead(version: .http1_1, method: .GET, uri: "")

    /// A request head with `method`, for the response decoder.
    func head(_ method: HTTPMethod) -> HTTPRequestHead {
        if lastHead.method != method { lastHead = HTTPRequestHead(version: .http1_1, method: method, uri: "") }
        return lastHead
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            answer = Raw(
                status: Int(head.status.code), body: nil, date: head.headers.first(name: "Date"),
                close: !head.isKeepAlive)
        case .body(var bytes):
            guard answer != nil else { return }
            if (answer?.body?.readableBytes ?? 0) + bytes.readableBytes > Self.maxBodyBytes {
                answer = nil
                resumeWithout("an answer body over 16 MiB")
                context.close(promise: nil)
                return
            }
            if answer?.body == nil { answer?.body = bytes } else { answer?.body?.writeBuffer(&bytes) }
        case .end:
            guard let answer, let waiter else { return }
            self.answer = nil
            self.waiter = nil
            if answer.close { context.close(promise: nil) }
            waiter.resume(returning: answer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        resumeWithout("the connection was closed before the answer")
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        resumeWithout(TargetHTTP.failure(error))
        context.close(promise: nil)
    }

    /// The waiting worker resumed with no answer, and why.
    func resumeWithout(_ failure: String) {
        let waiter = self.waiter
        self.waiter = nil
        waiter?.resume(returning: .failed(failure))
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
