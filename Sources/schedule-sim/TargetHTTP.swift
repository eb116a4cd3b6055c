import Foundation
import SlotScheduler
import SlotSimulation

#if AsyncHTTP
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
#else
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#endif

/// How `run --target` sends its requests: `concurrency` of them in flight over kept-alive
/// connections. With the `AsyncHTTP` trait, on NIO: the workload on one connection per worker
/// (``WorkerConnections``) for an `http://` target, and each read on a connection of its own,
/// and AsyncHTTPClient otherwise (eight times
/// URLSession's requests a second here, docs/performance/); without it, Foundation's URLSession, so that the default
/// build of schedule-sim compiles neither NIO nor BoringSSL.
///
/// Several targets are several instances of one API on one ledger: worker `process` sends to
/// target `process % n`, and a read made before or after the run to the next target at each
/// attempt (``send(_:attempt:)``), so one instance that is down or restarting does not stop it.
final class TargetHTTP: Sendable {
    /// An answer: its status, JSON body and `Date` header; no status when none came, and then
    /// why, when the client said (`connection refused`, a timeout).
    typealias Answer = (status: Int?, body: JSONValue?, date: String?, failure: String?)

    /// The instances' base URLs, without a trailing slash.
    let targets: [String]

    /// The target worker `process` sends to, and its place among that target's workers.
    func route(_ process: Int) -> (target: Int, worker: Int) { (process % targets.count, process / targets.count) }

    /// A read (`rendered`, made before or after the run), at its `attempt`-th sending.
    func send(_ rendered: RenderedRequest, attempt: Int) async -> Answer {
        let target = targets[attempt % targets.count]
        #if AsyncHTTP
        // An `http://` target is read on a connection of its own, as the workload's are: its
        // answers are taken apart by this module's handler, which takes a status below 100 for
        // no answer, where AsyncHTTPClient 1.37 stops the process (a precondition in its
        // request state machine).
        if let connection = WorkerConnections(target: target, workers: 1) {
            let answer = await connection.send(rendered, process: 0)
            await connection.shutdown()
            return answer
        }
        #endif
        return await send(target + rendered.path, rendered, reading: true)
    }

    #if AsyncHTTP
    let client: HTTPClient
    /// The client of the reads made before and after the run of an `https://` target, which
    /// fails a connection at once:
    /// a read is tried again by ``TargetRun`` itself, on the next target, so a closed port is
    /// told in seconds, not after five times `client`'s 10 s of connection attempts.
    let readClient: HTTPClient
    /// The workload's own connections, one per worker, for `http://` targets (one set per target).
    let workers: [WorkerConnections]?

    init(concurrency: Int, targets: [String]) {
        self.targets = targets
        let perTarget = (concurrency + targets.count - 1) / targets.count
        let connections = targets.compactMap { WorkerConnections(target: $0, workers: perTarget) }
        workers = connections.count == targets.count ? connections : nil
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        configuration.connectionPool.retryConnectionEstablishment = false
        readClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func send(_ url: String, _ rendered: RenderedRequest, reading: Bool = false) async -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: rendered.method)
        for (name, value) in rendered.headers { request.headers.add(name: name, value: value) }
        if let body = rendered.body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            // The deadline covers the body too: AsyncHTTPClient's covers only the head, and its
            // read timeout only the gap between two reads, so a body sent a byte a second took days.
            let deadline = ContinuousClock.now + .seconds(30)
            let response = try await (reading ? readClient : client).execute(request, timeout: .seconds(30))
            let bytes = try await Self.collect(response.body, upTo: 16 << 20, by: deadline)
            let body = bytes.readableBytes == 0 ? nil : try? JSONValue(parsing: Array(bytes.readableBytesView))
            return (Int(response.status.code), body, response.headers.first(name: "Date"), nil)
        } catch {
            return (nil, nil, nil, Self.failure(error))
        }
    }

    /// `body` read whole, up to `maxBytes`; `HTTPClientError.deadlineExceeded` at `deadline`
    /// (reading it is then cancelled, which closes its connection).
    static func collect(
        _ body: HTTPClientResponse.Body, upTo maxBytes: Int, by deadline: ContinuousClock.Instant
    ) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: maxBytes) }
            group.addTask {
                try await Task.sleep(until: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let bytes = first else {
                throw HTTPClientError.deadlineExceeded
            }
            return bytes
        }
    }

    /// `rendered` sent for worker `process` to its target: on its own connection when it has one
    /// (the URL is then not written out).
    func send(_ rendered: RenderedRequest, process: Int) async -> Answer {
        let (target, worker) = route(process)
        guard let workers else { return await send(targets[target] + rendered.path, rendered, reading: false) }
        return await workers[target].send(rendered, process: worker)
    }

    /// The executor worker `process` runs on: its connection's event loop.
    func executor(for process: Int) -> (any TaskExecutor)? {
        let (target, worker) = route(process)
        return workers?[target].executor(for: worker)
    }

    func shutdown() async {
        for connections in workers ?? [] { await connections.shutdown() }
        try? await client.shutdown()
        try? await readClient.shutdown()
    }
    #else
    let session: URLSession

    init(concurrency: Int, targets: [String]) {
        self.targets = targets
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = concurrency
        configuration.timeoutIntervalForRequest = 30
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    func send(_ url: String, _ rendered: RenderedRequest, reading: Bool = false) async -> Answer {
        guard let url = URL(string: url) else { return (nil, nil, nil, "not a URL") }
        var request = URLRequest(url: url)
        request.httpMethod = rendered.method
        for (name, value) in rendered.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = rendered.body
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return (nil, nil, nil, "not an HTTP answer") }
            let body = data.isEmpty ? nil : try? JSONValue(parsing: Array(data))
            return (http.statusCode, body, http.value(forHTTPHeaderField: "Date"), nil)
        } catch {
            return (nil, nil, nil, Self.failure(error))
        }
    }

    func send(_ rendered: RenderedRequest, process: Int) async -> Answer {
        await send(targets[route(process).target] + rendered.path, rendered)
    }

    func executor(for process: Int) -> (any TaskExecutor)? { nil }

    func shutdown() async { session.finishTasksAndInvalidate() }
    #endif

    /// What a client error says, in a few words: `Connection refused`, not its type's fields.
    static func failure(_ error: any Error) -> String {
        #if AsyncHTTP
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? NIOConnectionError, let first = error.connectionErrors.first {
            return failure(first.error)
        }
        if let error = error as? ChannelError, case .connectTimeout = error { return "no connection within 10 s" }
        if error is NIOTooManyBytesError { return "an answer body over 16 MiB" }
        if let error = error as? HTTPParserError { return "an answer that is not HTTP/1.1 (\(error))" }
        if let error = error as? HTTPClientError {
            if error == .connectTimeout { return "no connection within 10 s" }
            if error == .readTimeout || error == .deadlineExceeded { return "no answer within 30 s" }
            if error == .remoteConnectionClosed { return "the connection was closed before the answer" }
        }
        #else
        if let error = error as? URLError { return error.localizedDescription }
        #endif
        return String(describing: error)
    }
}
