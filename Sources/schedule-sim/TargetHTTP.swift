import Foundation
import SlotScheduler
import SlotSimulation

#if AsyncHTTP
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
#else
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#endif

/// How `run --target` sends its requests: `concurrency` of them in flight over kept-alive
/// connections. With the `AsyncHTTP` trait, on NIO: the workload on one connection per worker
/// (``WorkerConnections``) for an `http://` target, and AsyncHTTPClient otherwise (eight times
/// URLSession's requests a second here, docs/performance/); without it, Foundation's URLSession, so that the default
/// build of schedule-sim compiles neither NIO nor BoringSSL.
///
/// Several targets are several instances of one API on one ledger: worker `process` sends to
/// target `process % n`, and a read made before or after the run to the next target at each
/// attempt (``send(_:attempt:)``), so one instance that is down or restarting does not stop it.
final class TargetHTTP: Sendable {
    /// An answer: its status, JSON body and `Date` header; no status when none came.
    typealias Answer = (status: Int?, body: JSONValue?, date: String?)

    /// The instances' base URLs, without a trailing slash.
    let targets: [String]

    /// The target worker `process` sends to, and its place among that target's workers.
    func route(_ process: Int) -> (target: Int, worker: Int) { (process % targets.count, process / targets.count) }

    /// A read (`rendered`, made before or after the run), at its `attempt`-th sending.
    func send(_ rendered: RenderedRequest, attempt: Int) async -> Answer {
        await send(targets[attempt % targets.count] + rendered.path, rendered)
    }

    #if AsyncHTTP
    let client: HTTPClient
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
    }

    func send(_ url: String, _ rendered: RenderedRequest) async -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: rendered.method)
        for (name, value) in rendered.headers { request.headers.add(name: name, value: value) }
        if let body = rendered.body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let bytes = try await response.body.collect(upTo: 16 << 20)
            let body = bytes.readableBytes == 0 ? nil : try? JSONValue(parsing: Array(bytes.readableBytesView))
            return (Int(response.status.code), body, response.headers.first(name: "Date"))
        } catch {
            return (nil, nil, nil)
        }
    }

    /// `rendered` sent for worker `process` to its target: on its own connection when it has one
    /// (the URL is then not written out).
    func send(_ rendered: RenderedRequest, process: Int) async -> Answer {
        let (target, worker) = route(process)
        guard let workers else { return await send(targets[target] + rendered.path, rendered) }
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

    func send(_ url: String, _ rendered: RenderedRequest) async -> Answer {
        guard let url = URL(string: url) else { return (nil, nil, nil) }
        var request = URLRequest(url: url)
        request.httpMethod = rendered.method
        for (name, value) in rendered.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = rendered.body
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return (nil, nil, nil) }
            let body = data.isEmpty ? nil : try? JSONValue(parsing: Array(data))
            return (http.statusCode, body, http.value(forHTTPHeaderField: "Date"))
        } catch {
            return (nil, nil, nil)
        }
    }

    func send(_ rendered: RenderedRequest, process: Int) async -> Answer {
        await send(targets[route(process).target] + rendered.path, rendered)
    }

    func executor(for process: Int) -> (any TaskExecutor)? { nil }

    func shutdown() async { session.finishTasksAndInvalidate() }
    #endif
}
