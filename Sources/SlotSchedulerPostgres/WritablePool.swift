#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The connection pool, on the server of the configuration's hosts that accepts writes.
///
/// With one host it is a plain pool that reconnects by itself. With several (a primary and its
/// standbys: `postgres://u@primary:5432,standby:5432/db`), it starts on the first that is not in
/// recovery, as libpq's `target_session_attrs=read-write` does, and after a lost connection or a
/// read-only refusal it looks again and moves to the promoted standby. Acknowledged bookings
/// survive the move only if the old primary committed them on a synchronous standby
/// (`synchronous_standby_names`, `synchronous_commit = on` or `remote_apply`): see docs/POSTGRES.md.
final class WritablePool: Sendable {
    private struct Current {
        var client: PostgresClient
        /// The client's `run()`, when this pool started it; `nil` for the application's own
        /// client, which the application runs and stops.
        var run: Task<Void, Never>?
        var host: PostgresConfiguration.Host
    }
    /// Whether the client is the application's: then it is neither stopped nor replaced here.
    private let isBorrowed: Bool
    private let current: Mutex<Current>
    /// The search in progress, so concurrent failures share one.
    private let search = Mutex<Task<Void, Never>?>(nil)
    let configuration: PostgresConfiguration
    let logger: Logger
    let counters: StoreCounters

    init(_ configuration: PostgresConfiguration, logger: Logger, counters: StoreCounters) async throws {
        self.configuration = configuration
        self.logger = logger
        self.counters = counters
        let host = try await Self.writableHost(configuration, logger: logger)
        let client = PostgresClient(configuration: configuration.clientConfiguration(host))
        current = Mutex(Current(client: client, run: Task { await client.run() }, host: host))
        isBorrowed = false
    }

    /// A pool over the application's own client, which the application runs (as a `Service` of
    /// its `ServiceGroup`, or in a task) and stops: one pool of connections per process, not a
    /// second one for the store. `configuration` still gives the schema, the attempts and their
    /// deadline; its hosts and session settings are the client's business, and the store does not
    /// move to another host (the client's configuration names the one it uses).
    init(
        borrowing client: PostgresClient, _ configuration: PostgresConfiguration, logger: Logger,
        counters: StoreCounters
    ) {
        self.configuration = configuration
        self.logger = logger
        self.counters = counters
        current = Mutex(Current(client: client, run: nil, host: configuration.hosts[0]))
        isBorrowed = true
    }

    var client: PostgresClient { current.withLock { $0.client } }
    /// The host the pool is on.
    var host: PostgresConfiguration.Host { current.withLock { $0.host } }
    var hasStandbys: Bool { !isBorrowed && configuration.hosts.count > 1 }

    func shutdown() async {
        guard let run = current.withLock({ $0.run }) else { return }
        run.cancel()
        await run.value
    }

    /// Cancels the pool's task without waiting (for `deinit`).
    func cancel() { current.withLock { $0.run?.cancel() } }

    /// After a lost connection or a read-only refusal: moves the pool to the host that now
    /// accepts writes, if that is another one. Failures to find one are left to the caller's
    /// retries.
    func followPrimary() async {
        guard hasStandbys else { return }
        let task = search.withLock { running -> Task<Void, Never> in
            if let running { return running }
            let task = Task { await self.moveToWritableHost() }
            running = task
            return task
        }
        await task.value
        search.withLock { if $0 == task { $0 = nil } }
    }

    private func moveToWritableHost() async {
        guard let host = try? await Self.writableHost(configuration, logger: logger) else { return }
        let old = current.withLock { current -> (Task<Void, Never>?, PostgresConfiguration.Host)? in
            guard current.host != host else { return nil }
            let client = PostgresClient(configuration: configuration.clientConfiguration(host))
            let previous = (current.run, current.host)
            current = Current(client: client, run: Task { await client.run() }, host: host)
            return previous
        }
        guard let (run, from) = old else { return }
        counters.movedHost()
        logger.warning(
            "PostgreSQL store moved to the host that accepts writes", metadata: ["from": "\(from)", "to": "\(host)"])
        run?.cancel()
    }

    /// The first host, in order, that accepts a connection and is not in recovery; with one host,
    /// that host once it accepts a connection. Throws the first host's connection error if none.
    static func writableHost(_ configuration: PostgresConfiguration, logger: Logger) async throws
        -> PostgresConfiguration.Host
    {
        var firstError: (any Error)?
        for host in configuration.hosts {
            do {
                let writable = try await ConnectionProbe.check(
                    configuration, host: host, askingWritable: configuration.hosts.count > 1, logger: logger)
                if writable { return host }
                firstError =
                    firstError
                    ?? PostgresStoreError(
                        .readOnly, operation: "connect to \(host)", message: "the server is a read-only standby")
            } catch {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? PostgresStoreError(.missingConfiguration, operation: "connect", message: "no host")
    }
}
#endif
