#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO

// Every statement the store sends goes through `allRows`, never through the `async` `query` that
// returns a `PostgresRowSequence`.
//
// PostgresNIO 1.33.2 crashes the process (`preconditionFailure` in
// `RowStreamStateMachine.channelReadComplete`: "How can we receive a body part, after a
// channelReadComplete, but no read has been forwarded yet") when the server's end of a connection
// closes while a result is streaming and its consumer has not yet asked for more rows. A
// `PostgresRowSequence` asks from the consumer's task, after a hop off the event loop, so under
// load the window is wide: `Scripts/pg-failover.sh` lost a simulator process to it about one run
// in four with the CPU busy, when the primary was killed. The future-based `query` collects every
// row with `PSQLRowStream.all()`, which asks for more on the event loop as rows arrive, so the
// stream never waits for a consumer and a closed connection fails the query with an error.
// (swift-server/async-http-client fixed the same state machine's precondition in its pull
// request 450.) `RowStreamCrashTests` cuts a connection mid-result to keep it so.
extension PostgresConnection {
    /// Every row of `query`, collected on the connection's event loop.
    @discardableResult
    func allRows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        let result: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger)
        return try await result.get().rows
    }
}
#endif
