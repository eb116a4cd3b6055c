import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle
import SlotSchedulerPostgres
import Synchronization

/// The kept answers of ``IdempotencyMiddleware`` in the store's PostgreSQL database (table
/// `booking_service_idempotency`, in the store's schema, created at start), so a repeat may reach
/// any instance on that database: behind a load balancer, a client's retry finds the answer of
/// its first request wherever it was answered.
///
/// A row per caller and key: the request's fingerprint (method, path, the body's SHA-256, computed
/// by the server: the body itself, a check-in's access code, is never kept), and
/// either `inFlight` (a claim, with the claiming request's id) or `kept` (the status, headers and
/// body of the answer). The database decides who is first: the claim is one
/// `INSERT … ON CONFLICT DO UPDATE … WHERE` that inserts the row, or takes over one whose answer
/// outlived ``lifetime`` or whose claim was abandoned (in flight for longer than
/// ``abandonedAfter``: its instance was killed mid-request), and returns it only then. Another
/// request reads the row:
/// - another fingerprint: 422 `idempotencyKeyReused`;
/// - `kept`: that answer, replayed;
/// - `inFlight`: it polls the row (20 ms, doubling to 500 ms) for ``waitLimit``; if the answer is
///   not kept by then, or the first request's answer was a 5xx (its row is deleted), 503
///   `outcomeUnknown` with `Retry-After: 1`: the client repeats it with the same key.
///
/// An answer is kept only by the claim that made it: one whose claim was taken over meanwhile
/// is sent but not kept. Rows older than ``lifetime`` are deleted, at most 1000 at a time, at
/// most once a minute per instance. When the database does not answer (within the
/// configuration's `attemptTimeout`), a keyed request is a 503 `outcomeUnknown`, never run
/// unguarded.
///
/// The rows go through a pool of their own (at most ``maximumConnections`` connections, the
/// store's settings: TLS, schema, application name, statement timeout): the store's pool is its
/// own. With several hosts (a primary and its standbys), the pool starts on the first and moves
/// to the next after a lost connection or a read-only refusal, as the store follows a failover.
final class SharedAnswers: AnswerKeeper, Service {
    /// How long an answer is kept, as ``KeptAnswers/lifetime``.
    let lifetime: Duration
    /// How long a repeat waits for the first request's answer before a 503 to retry.
    let waitLimit: Duration
    /// How long a claim may stay in flight before another request takes it over: longer than
    /// the store's calls can take (its attempts, each within its timeout).
    let abandonedAfter: Duration
    /// How long one statement may take, the wait for a connection included.
    let attemptTimeout: Duration
    static let maximumConnections = 4
    private let pool: AnswerPool
    private let logger: Logger
    /// When rows were last pruned, and whether a prune is running.
    private let pruning = Mutex<(last: ContinuousClock.Instant?, running: Bool)>((nil, false))

    private init(
        _ configuration: PostgresConfiguration, lifetime: Duration, waitLimit: Duration, logger: Logger
    ) {
        self.lifetime = lifetime
        self.waitLimit = waitLimit
        attemptTimeout = configuration.attemptTimeout
        abandonedAfter = max(.seconds(60), configuration.attemptTimeout * configuration.maximumAttempts + .seconds(30))
        pool = AnswerPool(configuration, logger: logger)
        self.logger = logger
    }

    /// Connects and creates the table if it is missing (under an advisory lock, so instances
    /// starting together create it once).
    static func open(
        _ configuration: PostgresConfiguration, lifetime: Duration = .seconds(24 * 3_600),
        waitLimit: Duration = .seconds(10), logger: Logger
    ) async throws -> SharedAnswers {
        let answers = SharedAnswers(configuration, lifetime: lifetime, waitLimit: waitLimit, logger: logger)
        var attempt = 1
        while true {
            do {
                try await answers.execute("create") { client in
                    try await client.withConnection { connection in
                        do {
                            for statement in Self.schema {
                                try await connection.query(statement, logger: logger).consume()
                            }
                        } catch {
                            // The connection goes back to the pool: not in a failed transaction.
                            _ = try? await connection.query("ROLLBACK", logger: logger).consume()
                            throw error
                        }
                    }
                }
                return answers
            } catch {
                guard attempt < configuration.hosts.count, AnswerPool.isLost(error) else {
                    await answers.pool.shutdown()
                    throw error
                }
                attempt += 1
            }
        }
    }

    /// The table and its index, in one transaction under an advisory lock.
    static let schema: [PostgresQuery] = [
        "BEGIN",
        "SELECT pg_advisory_xact_lock(hashtext('booking_service_idempotency'))",
        """
        CREATE TABLE IF NOT EXISTS booking_service_idempotency (
            user_id bigint NOT NULL,
            idempotency_key text NOT NULL,
            method text NOT NULL,
            path text NOT NULL,
            body_hash bytea NOT NULL,
            claim uuid NOT NULL,
            state text NOT NULL CHECK (state IN ('inFlight', 'kept')),
            status integer,
            reason text,
            header_names text[],
            header_values text[],
            body bytea,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (user_id, idempotency_key)
        )
        """,
        """
        CREATE INDEX IF NOT EXISTS booking_service_idempotency_updated_at
            ON booking_service_idempotency (updated_at)
        """,
        "COMMIT",
    ]

    /// As a `Service`: closes the pool at the group's graceful shutdown (after the server's).
    func run() async throws {
        try? await gracefulShutdown()
        await pool.shutdown()
    }

    func claim(_ request: KeyedRequest) async throws(APIError) -> AnswerClaim {
        pruneIfDue()
        let deadline = ContinuousClock.now + waitLimit
        let claim = UUID()
        var pause = Duration.milliseconds(20)
        var tryClaim = true
        var sawInFlight = false
        do {
            while true {
                guard ContinuousClock.now < deadline else { throw APIError.keyInFlightFailed }
                if tryClaim, try await insert(request, claim: claim) {
                    return .first(first(request.key, claim: claim))
                }
                let row = try await read(request)
                guard let row else {
                    // Deleted since: a first request answered with a 5xx (as in memory, the
                    // repeat that waited for it is a 503 to retry), or an expired row pruned.
                    if sawInFlight { throw APIError.keyInFlightFailed }
                    tryClaim = true
                    continue
                }
                guard row.isSameRequest else { return .reused }
                if let answer = row.answer, !row.isStale { return .kept(answer) }
                tryClaim = row.isStale
                if !tryClaim {
                    sawInFlight = true
                    guard ContinuousClock.now + pause < deadline else {
                        logger.notice(
                            "Idempotency-Key: the first request is still in flight; answered 503 to retry",
                            metadata: ["user": "\(request.key.user)"])
                        throw APIError.keyInFlightFailed
                    }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, .milliseconds(500))
                }
            }
        } catch let error as APIError {
            throw error
        } catch {
            logger.warning(
                "Idempotency-Key: the kept answers' database did not answer; answered 503",
                metadata: ["error": "\(String(reflecting: error))"])
            throw APIError.keptAnswersUnavailable
        }
    }

    /// Inserts `request`'s claim, or takes over an expired or abandoned row: whether it did.
    private func insert(_ request: KeyedRequest, claim: UUID) async throws -> Bool {
        let (user, key) = (Int64(bitPattern: request.key.user), request.key.key)
        let (method, path) = (request.fingerprint.method, request.fingerprint.path)
        let body = ByteBuffer(bytes: request.fingerprint.body)
        let (abandoned, expired) = (Self.seconds(abandonedAfter), Self.seconds(lifetime))
        return try await execute("claim") { client in
            try await client.query(
                """
                INSERT INTO booking_service_idempotency AS t
                    (user_id, idempotency_key, method, path, body_hash, claim, state, updated_at)
                VALUES (\(user), \(key), \(method), \(path), sha256(\(body)), \(claim), 'inFlight', now())
                ON CONFLICT (user_id, idempotency_key) DO UPDATE
                SET method = excluded.method, path = excluded.path, body_hash = excluded.body_hash,
                    claim = excluded.claim, state = 'inFlight', status = NULL, reason = NULL,
                    header_names = NULL, header_values = NULL, body = NULL, updated_at = now()
                WHERE (t.state = 'inFlight' AND t.updated_at < now() - make_interval(secs => \(abandoned)))
                   OR (t.state = 'kept' AND t.updated_at < now() - make_interval(secs => \(expired)))
                RETURNING t.claim
                """, logger: self.logger
            ).collect().count == 1
        }
    }

    /// A row as a repeat reads it.
    private struct Row: Sendable {
        /// Whether the row's request had the method, path and body of this one.
        var isSameRequest: Bool
        /// The kept answer; `nil` while in flight.
        var answer: Response?
        /// An answer older than the lifetime, or a claim abandoned: the next claim takes it over.
        var isStale: Bool
    }

    private func read(_ request: KeyedRequest) async throws -> Row? {
        let (user, text) = (Int64(bitPattern: request.key.user), request.key.key)
        let (method, path) = (request.fingerprint.method, request.fingerprint.path)
        let body = ByteBuffer(bytes: request.fingerprint.body)
        let (abandoned, expired) = (Self.seconds(abandonedAfter), Self.seconds(lifetime))
        return try await execute("read") { client in
            let rows = try await client.query(
                """
                SELECT method = \(method) AND path = \(path) AND body_hash = sha256(\(body)),
                    status, reason, header_names, header_values, body,
                    CASE state WHEN 'kept' THEN updated_at < now() - make_interval(secs => \(expired))
                        ELSE updated_at < now() - make_interval(secs => \(abandoned)) END
                FROM booking_service_idempotency WHERE user_id = \(user) AND idempotency_key = \(text)
                """, logger: self.logger)
            typealias Columns = (Bool, Int32?, String?, [String]?, [String]?, ByteBuffer?, Bool)
            for try await (isSame, status, reason, names, values, body, isStale) in rows.decode(Columns.self) {
                let answer = status.map { status in
                    Self.response(
                        status: Int(status), reason: reason ?? "", names: names ?? [], values: values ?? [],
                        body: body ?? ByteBuffer())
                }
                return Row(isSameRequest: isSame, answer: answer, isStale: isStale)
            }
            return nil
        }
    }

    /// What the first request does with its answer: keeps it in its claimed row, or deletes the
    /// row.
    private func first(_ key: KeyedRequest.Key, claim: UUID) -> FirstAnswer {
        FirstAnswer(
            keep: { response in
                // The body is read into memory to be kept; the client gets those same bytes.
                let collector = BodyCollector()
                do { try await response.body.write(collector) } catch {
                    await self.forget(key, claim: claim)
                    return response
                }
                let sent = Response(
                    status: response.status, headers: response.headers,
                    body: ResponseBody(byteBuffer: collector.buffer))
                await self.keep(sent, body: collector.buffer, key, claim: claim)
                return sent
            },
            forget: { await self.forget(key, claim: claim) })
    }

    private func keep(_ response: Response, body: ByteBuffer, _ key: KeyedRequest.Key, claim: UUID) async {
        let (user, text) = (Int64(bitPattern: key.user), key.key)
        let (status, reason) = (Int32(response.status.code), response.status.reasonPhrase)
        let names = response.headers.map { $0.name.rawName }
        let values = response.headers.map(\.value)
        do {
            let kept = try await execute("keep") { client in
                try await client.query(
                    """
                    UPDATE booking_service_idempotency
                    SET state = 'kept', status = \(status), reason = \(reason), header_names = \(names),
                        header_values = \(values), body = \(body), updated_at = now()
                    WHERE user_id = \(user) AND idempotency_key = \(text) AND claim = \(claim)
                        AND state = 'inFlight'
                    RETURNING 1
                    """, logger: self.logger
                ).collect().count == 1
            }
            if !kept {
                logger.warning(
                    "Idempotency-Key: the claim was taken over before its answer; the answer is not kept",
                    metadata: ["user": "\(key.user)"])
            }
        } catch {
            logger.warning(
                "Idempotency-Key: the answer could not be kept; a repeat runs again",
                metadata: ["error": "\(String(reflecting: error))"])
            await forget(key, claim: claim)
        }
    }

    private func forget(_ key: KeyedRequest.Key, claim: UUID) async {
        let (user, text) = (Int64(bitPattern: key.user), key.key)
        do {
            try await execute("forget") { client in
                try await client.query(
                    """
                    DELETE FROM booking_service_idempotency
                    WHERE user_id = \(user) AND idempotency_key = \(text) AND claim = \(claim)
                    """, logger: self.logger
                ).consume()
            }
        } catch {
            // The row stays in flight until it is taken over as abandoned.
            logger.warning(
                "Idempotency-Key: a claim could not be deleted; it is taken over once abandoned",
                metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// Deletes up to 1000 rows older than the lifetime (and any abandoned claim as old), at most
    /// once a minute, in the background.
    private func pruneIfDue() {
        let now = ContinuousClock.now
        let due = pruning.withLock { state -> Bool in
            guard !state.running, state.last.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            state = (now, true)
            return true
        }
        guard due else { return }
        let age = Self.seconds(max(lifetime, abandonedAfter))
        Task {
            defer { pruning.withLock { $0.running = false } }
            do {
                try await execute("prune") { client in
                    try await client.query(
                        """
                        DELETE FROM booking_service_idempotency WHERE ctid = ANY(ARRAY(
                            SELECT ctid FROM booking_service_idempotency
                            WHERE updated_at < now() - make_interval(secs => \(age)) LIMIT 1000))
                        """, logger: self.logger
                    ).consume()
                }
            } catch {
                logger.notice("Idempotency-Key: old kept answers not pruned", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Runs `body` with the pool's client in a task of its own (a request's cancellation does not
    /// abandon a keep or a forget half way), waiting at most ``attemptTimeout``; after a lost
    /// connection or a read-only refusal, the pool moves to its next host, if it has one.
    @discardableResult
    private func execute<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = pool.client
        do {
            return try await Deadline.run(attemptTimeout, operation: operation) { try await body(client) }
        } catch {
            if AnswerPool.isLost(error) { pool.moveOn(from: client) }
            throw error
        }
    }

    static func response(status: Int, reason: String, names: [String], values: [String], body: ByteBuffer)
        -> Response
    {
        var headers = HTTPFields()
        for (name, value) in zip(names, values) {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: status, reasonPhrase: reason), headers: headers,
            body: ResponseBody(byteBuffer: body))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Collects a response's body, to keep it.
private final class BodyCollector: ResponseBodyWriter {
    var buffer = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// The PostgreSQL client of ``SharedAnswers``, on one of the configuration's hosts.
private final class AnswerPool: Sendable {
    private struct Current {
        var client: PostgresClient
        var run: Task<Void, Never>
        var host: Int
    }
    private let current: Mutex<(current: Current, isClosed: Bool)>
    private let configuration: PostgresConfiguration
    private let logger: Logger

    init(_ configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        current = Mutex((Self.start(configuration, host: 0, logger: logger), false))
    }

    private static func start(_ configuration: PostgresConfiguration, host: Int, logger: Logger) -> Current {
        let client = PostgresClient(
            configuration: clientConfiguration(configuration, configuration.hosts[host]), backgroundLogger: logger)
        return Current(client: client, run: Task { await client.run() }, host: host)
    }

    /// The client (after shutdown, the closed one: its calls fail or run out of time).
    var client: PostgresClient { current.withLock { $0.current.client } }

    /// Moves to the next host after `failed` (the client a call failed on) lost its connection
    /// or was refused as read-only; nothing with one host, or when another call moved already.
    func moveOn(from failed: PostgresClient) {
        guard configuration.hosts.count > 1 else { return }
        let old = current.withLock { state -> Current? in
            let previous = state.current
            guard !state.isClosed, previous.client === failed else { return nil }
            let next = (previous.host + 1) % configuration.hosts.count
            state.current = Self.start(configuration, host: next, logger: logger)
            return previous
        }
        guard let old else { return }
        logger.warning(
            "Idempotency-Key: kept answers moved to another host",
            metadata: [
                "from": "\(configuration.hosts[old.host])",
                "to": "\(configuration.hosts[(old.host + 1) % configuration.hosts.count])",
            ])
        old.run.cancel()
    }

    func shutdown() async {
        let run = current.withLock { state in
            state.isClosed = true
            return state.current.run
        }
        run.cancel()
        await run.value
    }

    /// Whether `error` says the connection is lost or the server takes no writes (a standby):
    /// then another host may be the primary.
    static func isLost(_ error: any Error) -> Bool {
        if error is Deadline.Passed { return true }
        guard let error = error as? PSQLError else { return false }
        guard error.code == .server else { return true }
        let state = error.serverInfo?[.sqlState] ?? ""
        return state == "25006" || state.hasPrefix("57P") || state.hasPrefix("08")
    }

    /// The client's settings: the store's host, credentials, TLS and session settings.
    static func clientConfiguration(_ configuration: PostgresConfiguration, _ host: PostgresConfiguration.Host)
        -> PostgresClient.Configuration
    {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch configuration.tls {
        case .disable: break
        case .require: tls.certificateVerification = .none
        case .verifyFull:
            tls.certificateVerification = .fullVerification
            if let file = configuration.tlsCAFile { tls.trustRoots = .file(file) }
        }
        var client = PostgresClient.Configuration(
            host: host.host, port: host.port, username: configuration.username, password: configuration.password,
            database: configuration.database, tls: configuration.tls == .disable ? .disable : .require(tls))
        client.options.maximumConnections = SharedAnswers.maximumConnections
        client.options.connectTimeout = configuration.connectTimeout
        let name = configuration.applicationName.unicodeScalars.filter { (32...126).contains($0.value) }.prefix(63)
        var parameters = [
            ("search_path", configuration.schema), ("application_name", String(String.UnicodeScalarView(name))),
        ]
        if let timeout = configuration.statementTimeout {
            let milliseconds = max(1, min(Double(Int32.max), (SharedAnswers.seconds(timeout) * 1_000).rounded(.down)))
            parameters.append(("statement_timeout", String(Int(milliseconds))))
        }
        client.options.additionalStartupParameters = parameters
        return client
    }
}

/// Runs a call in a task of its own and stops waiting for it after a limit.
enum Deadline {
    /// The call took longer than its limit (it is cancelled).
    struct Passed: Error, CustomStringConvertible {
        var operation: String
        var limit: Duration
        var description: String { "\(operation): no answer within \(limit)" }
    }

    /// Resumes a continuation once, with the first result.
    private final class Once<T: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<T, any Error>?>
        let work = Mutex<Task<Void, Never>?>(nil)

        init(_ continuation: CheckedContinuation<T, any Error>) { self.continuation = Mutex(continuation) }

        /// Whether this result was the first.
        @discardableResult
        func resume(_ result: Result<T, any Error>) -> Bool {
            guard let continuation = continuation.withLock({ $0.take() }) else { return false }
            continuation.resume(with: result)
            return true
        }
    }

    static func run<T: Sendable>(
        _ limit: Duration, operation: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let once = Once(continuation)
            let timer = Task {
                try await Task.sleep(for: limit)
                if once.resume(.failure(Passed(operation: operation, limit: limit))) {
                    once.work.withLock { $0?.cancel() }
                }
            }
            let work = Task {
                do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
                timer.cancel()
            }
            once.work.withLock { $0 = work }
        }
    }
}

extension PostgresRowSequence {
    /// Reads the rows to the end (a statement's completion), dropping them.
    func consume() async throws {
        for try await _ in self {}
    }
}
