#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import Synchronization

/// A transaction that failed on a lost connection before its `COMMIT` was sent: the server
/// rolled it back, so it may be repeated even when it is not idempotent.
struct NotCommitted: Error, Sendable {
    var underlying: any Error

    /// `error` wrapped when it is a lost connection, else `error` itself.
    static func wrapping(_ error: any Error) -> any Error {
        PostgresBookingService.isConnectionLoss(error) ? NotCommitted(underlying: error) : error
    }
}

/// Why a call was abandoned before the server answered. Classified like a lost connection: the
/// call is repeated when idempotent, else reported as ``PostgresStoreError/Kind/outcomeUnknown``.
enum AbandonedCall: Error, Sendable {
    /// The leased connection was already closed (the server ended the session).
    case connectionClosed
    /// No answer within the per-attempt deadline.
    case deadline(Duration)
}

// PostgresNIO 1.33.2 writes queries to the channel with `promise: nil`. Once the server has ended
// a session (pg_terminate_backend, restart) NIO closes the channel and removes its handlers, so a
// query written afterwards is dropped by the pipeline's head and its result promise is never
// completed: the call awaits forever and ignores cancellation. Two paths reach such a channel:
//   * `PostgresConnection.withTransaction` sends ROLLBACK on the connection whose query just
//     failed with 57P01 (the session is gone);
//   * the pool learns of a closed connection asynchronously (after NIO removed the handlers),
//     so it can lease out a connection that is already closed.
// Hence: every statement goes through `withConnection` and checks `isClosed` first, transactions
// skip ROLLBACK on a closed connection (the server rolls back a session it ends), and each
// attempt runs under a deadline that does not rely on the call honouring cancellation.
extension PostgresBookingService {
    /// Rows of a read-only `query`, on a pooled connection that is open when the query is sent.
    /// Writes go through ``transaction(client:logger:_:)``.
    static func rows(_ query: PostgresQuery, client: PostgresClient, logger: Logger) async throws -> [PostgresRow] {
        try await client.withConnection { connection in
            guard !connection.isClosed else { throw AbandonedCall.connectionClosed }
            return try await connection.allRows(query, logger: logger)
        }
    }

    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await Self.rows(query, client: client, logger: logger)
    }

    /// BEGIN, `body`, COMMIT on one pooled connection; on failure ROLLBACK, unless the session
    /// is gone.
    ///
    /// Success is returned only once the server has answered the `COMMIT` statement, which it
    /// does after the commit record is flushed (and, with a synchronous standby, replicated).
    /// A statement run alone is committed later, at the protocol's `Sync`, after its result and
    /// `CommandComplete` may already have reached the client: a server crash in between loses a
    /// write the client saw succeed. So every write goes through here, never through ``rows(_:)``.
    ///
    /// A lost connection before `COMMIT` was sent is thrown as ``NotCommitted`` (the server never
    /// commits such a transaction, so repeating it is safe); one while `COMMIT` is in flight is
    /// thrown as it is: the outcome is unknown. Other errors pass through unwrapped.
    static func transaction<T: Sendable>(
        client: PostgresClient, logger: Logger, _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await client.withConnection { connection in
            guard !connection.isClosed else { throw AbandonedCall.connectionClosed }
            let value: T
            do {
                try await connection.allRows("BEGIN", logger: logger)
                value = try await body(connection)
                // A cancelled (abandoned) call must not commit behind its caller's back.
                try Task.checkCancellation()
            } catch {
                if !connection.isClosed { _ = try? await connection.allRows("ROLLBACK", logger: logger) }
                throw NotCommitted.wrapping(error)
            }
            try await connection.allRows("COMMIT", logger: logger)
            return value
        }
    }

    func transaction<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await Self.transaction(client: client, logger: logger, body)
    }

    /// The rows of `call`, a `CALL` of a procedure that ends in its own `COMMIT`
    /// (`slot_reserve_committed`, migration 15), sent alone on a pooled connection: one round
    /// trip where ``transaction(_:)`` takes three.
    ///
    /// The answer still comes only after the commit. The server runs the whole procedure, its
    /// `COMMIT` included (the commit record flushed, and replicated to a synchronous standby),
    /// before it sends the `CALL`'s row of OUT values; PostgresNIO completes the query at the
    /// `CommandComplete` that follows that row (`ExtendedQueryStateMachine`), so no row is seen
    /// before the commit. The connection is never in a transaction block here (the pool hands
    /// out idle connections, and ``transaction(client:logger:_:)`` ends every block it opens); if
    /// it were, the server would refuse the procedure's `COMMIT` with an error, not commit early.
    ///
    /// An error the server sends means the procedure rolled back (a serialization failure is
    /// repeated as before). Unlike ``transaction(_:)``, a connection lost during the call is not
    /// ``NotCommitted``: the commit may have run, so the caller's outcome is unknown unless the
    /// request is idempotent (a request id), exactly as a loss while `COMMIT` is in flight.
    func committedCall(_ call: PostgresQuery) async throws -> [PostgresRow] {
        try await client.withConnection { connection in
            guard !connection.isClosed else { throw AbandonedCall.connectionClosed }
            // A cancelled (abandoned) call must not commit behind its caller's back: once sent,
            // it runs to its commit.
            try Task.checkCancellation()
            return try await connection.allRows(call, logger: logger)
        }
    }

    /// Runs `body` in its own task and stops waiting for it after `limit`, throwing
    /// ``AbandonedCall/deadline(_:)``. An abandoned call that never returns (see above) is left
    /// suspended; it holds no lease on a live connection.
    ///
    /// When the caller is cancelled, so is `body`'s task, and its result is awaited (within the
    /// same `limit`): a transaction cancelled before its `COMMIT` rolls back and throws, one
    /// already committed returns its result. Before, the caller got `CancellationError` at
    /// once while `body`, never cancelled, went on to commit.
    static func withDeadline<T: Sendable>(
        _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let gate = Gate<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                gate.arm(continuation)
                let work = Task {
                    do { gate.finish(.success(try await body())) } catch { gate.finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    if !Task.isCancelled, gate.finish(.failure(AbandonedCall.deadline(limit))) { work.cancel() }
                }
                gate.onFinish { timer.cancel() }
                gate.onCancel { work.cancel() }
            }
        } onCancel: {
            gate.cancel()
        }
    }
}

/// Resumes a continuation exactly once, with whichever result comes first.
final class Gate<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var early: Result<T, any Error>?
        var done = false
        var cleanup: (@Sendable () -> Void)?
        var cancelled = false
        var cancelAction: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func arm(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.done { return true }
            state.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    /// Runs `action` when ``cancel()`` is called, or at once if it was already.
    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.cancelAction = action
            return false
        }
        if runNow { action() }
    }

    /// The waiting caller was cancelled: runs the ``onCancel(_:)`` action (the result still comes
    /// from ``finish(_:)``).
    func cancel() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            defer { state.cancelAction = nil }
            return state.cancelAction
        }
        action?()
    }

    /// Returns whether this result was the first.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        let (first, continuation, cleanup) = state.withLock {
            state -> (Bool, CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
            if state.done { return (false, nil, nil) }
            state.done = true
            if state.continuation == nil { state.early = result }
            let taken = (state.continuation, state.cleanup)
            state.continuation = nil
            state.cleanup = nil
            return (true, taken.0, taken.1)
        }
        continuation?.resume(with: result)
        cleanup?()
        return first
    }
}
#endif
