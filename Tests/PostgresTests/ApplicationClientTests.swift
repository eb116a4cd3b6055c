#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import PostgresNIO
import SlotScheduler
@testable import SlotSchedulerPostgres
import Testing

/// A store over the application's own `PostgresClient`: one pool per process, which the
/// application runs and stops.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct ApplicationClientTests {
    /// The store's configuration names a port nothing listens on: only the application's client
    /// (on the right one) can serve it. After the store shuts down, the client still runs.
    @Test(.databaseTestLimit) func theStoreRunsOnTheApplicationsClient() async throws {
        let right = try TestDatabase.configuration(schema: TestDatabase.freshSchema("client"))
        var wrong = right
        wrong.port = 1
        let client = PostgresClient(configuration: right.clientConfiguration(right.hosts[0]))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            let store = try await PostgresBookingService(
                client: client, configuration: wrong, stations: Fixture.stations, policy: Fixture.policy)
            let booking = try await store.reserve(.init(slot: Fixture.slot(hour: 10), user: 1), at: Fixture.now)
            #expect(try await store.booking(booking.id)?.status == .active)
            await store.shutdown()
            let rows = try await client.query("SELECT count(*) FROM \(unescaped: right.schema).bookings")
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            #expect(count == 1)
            group.cancelAll()
        }
    }
}
#endif
