#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import Logging
import ServiceLifecycle
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// The store as a ServiceLifecycle `Service`: a graceful shutdown of its group lets the call in
/// flight finish, then refuses new ones and closes the pool; and it logs through the
/// application's logger.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct ServiceTests {
    @Test(.databaseTestLimit)
    func gracefulShutdownLetsTheCallInFlightFinish() async throws {
        let schema = TestDatabase.freshSchema("service")
        let logs = CapturedLogs()
        let store = try await TestDatabase.store(schema: schema, logger: logs.logger())
        // Every booking's insert sleeps for 2 s: the reservation below is in flight when the
        // shutdown comes.
        let slow = """
            CREATE FUNCTION \(schema).slow_insert() RETURNS trigger LANGUAGE plpgsql AS
            'BEGIN PERFORM pg_sleep(2); RETURN NEW; END';
            CREATE TRIGGER slow_insert BEFORE INSERT ON \(schema).bookings
            FOR EACH ROW EXECUTE FUNCTION \(schema).slow_insert();
            """
        let quoted = slow.replacingOccurrences(of: "'", with: "'\\''")
        #expect(
            try await TestDatabase.shell(
                "timeout 30 psql -X -q -v ON_ERROR_STOP=1 -d '\(TestDatabase.url ?? "")' -c '\(quoted)' >/dev/null")
                == 0)

        let group = ServiceGroup(services: [store], logger: logs.logger())
        let running = Task { try await group.run() }
        let request = ReservationRequest(slot: Fixture.slot(hour: 10), user: 7)
        let inFlight = Task { try await store.reserve(request, at: Fixture.now) }
        var admitted = false
        for _ in 0..<200 where !admitted {
            admitted = store.admission.inFlight > 0
            if !admitted { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(admitted, "the reservation never started")
        await group.triggerGracefulShutdown()

        let booking = try await inFlight.value
        try await running.value
        #expect(booking.slot == request.slot && booking.user == request.user)
        do {
            _ = try await store.reserve(ReservationRequest(slot: Fixture.slot(hour: 11), user: 8), at: Fixture.now)
            Issue.record("a reservation was taken after the shutdown")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .shuttingDown, "\(error)")
        }
        #expect(logs.all.contains { $0.level == .info && $0.message == "PostgreSQL store shutting down" })

        // The booking made in flight is in the database.
        let reader = try await TestDatabase.store(schema: schema)
        #expect(try await reader.allBookingsByID().map(\.id) == [booking.id])
        await reader.shutdown()
    }
}
#endif
