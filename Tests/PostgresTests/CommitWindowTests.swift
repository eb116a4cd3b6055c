#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import Logging
import MetricsTestKit
import SlotScheduler
import SlotSchedulerPostgres
import Testing

/// The commit window: the server crashes while a reservation's `COMMIT` is in progress. A client
/// must never be told "accepted" for a booking the database does not have afterwards.
///
/// A test-only deferred trigger, in a throwaway schema, sleeps inside the commit until the server
/// restarts, so the crash lands in the window however slow the machine is. Before the store waited
/// for its own `COMMIT`, the reply (row and `CommandComplete`) reached the client ahead of the
/// commit, and this test saw "accepted" with an empty table.
@Suite(
    .exclusiveDatabase,
    .enabled(
        if: TestDatabase.url != nil && TestDatabase.restartCommand != nil,
        "needs SLOTSCHEDULER_DATABASE_URL and SLOTSCHEDULER_PG_RESTART_CMD (Scripts/with-postgres.sh)"))
struct CommitWindowTests {
    @Test(.databaseTestLimit, arguments: [false, true])
    func crashDuringCommitNeverAcknowledgesALostBooking(withRequestID: Bool) async throws {
        let schema = TestDatabase.freshSchema("commit")
        let logs = CapturedLogs()
        let metrics = TestMetrics()
        let store = try await TestDatabase.store(schema: schema, logger: logs.logger(), metricsFactory: metrics)
        defer { Task { await store.shutdown() } }
        try await installSlowCommit(schema: schema)

        let request = ReservationRequest(
            slot: Fixture.slot(hour: 10), user: 7, requestID: withRequestID ? "commit-window" : nil)
        let attempt = Task { try await store.reserve(request, at: Fixture.now) }
        #expect(try await waitForSleepingCommit(), "the commit never reached the test trigger")
        let restart = try await TestDatabase.shell("timeout 90 " + (TestDatabase.restartCommand ?? "false"))
        #expect(restart == 0)
        let outcome = await attempt.result
        let stored = try await store.allBookingsByID()

        // The application's logger saw the start, then the crash: a repeat, or the failure.
        #expect(logs.all.contains { $0.level == .info && $0.message == "PostgreSQL store ready" })
        let warnings = logs.all.filter { $0.level == .warning && $0.metadata["operation"] == "reserve" }
        switch outcome {
        case .success(let booking):
            // Only a repeatable request may have been retried to a real commit after the restart.
            #expect(withRequestID, "a reservation without a request id was acknowledged across a crash")
            #expect(stored.map(\.id) == [booking.id], "acknowledged \(booking.id), the database holds \(stored)")
            #expect(stored.first?.slot == request.slot && stored.first?.user == request.user)
            #expect(warnings.contains { $0.message == "PostgreSQL store repeats a call" }, "logged: \(logs.all)")
            #expect(
                metrics.counterTotal(
                    label: "slotscheduler_postgres_retries_total", dimensions: [("operation", "reserve")])
                    >= 1)
        case .failure(let error):
            #expect(stored.isEmpty, "the reservation failed (\(error)) but the database holds \(stored)")
            let kind = (error as? PostgresStoreError)?.kind
            #expect(kind == .outcomeUnknown || kind == .retriesExhausted, "not an indeterminate error: \(error)")
            #expect(
                warnings.contains { $0.message == "PostgreSQL store call failed: \(kind?.rawValue ?? "")" },
                "logged: \(logs.all)")
            #expect(
                metrics.counterTotal(
                    label: "slotscheduler_postgres_gave_up_total",
                    dimensions: [("operation", "reserve"), ("kind", kind?.rawValue ?? "")]) == 1)
        }
    }

    /// A deferred constraint trigger that sleeps in the COMMIT of every transaction that books,
    /// while the server started before the install runs (at most 60 s). The crash ends the sleep,
    /// not a timer: a fixed sleep (it was 3 s) can end, and the commit succeed, before a restart
    /// slowed by a loaded machine lands. A commit retried after the restart does not sleep.
    func installSlowCommit(schema: String) async throws {
        let sql = """
            CREATE TABLE \(schema).slow_server AS SELECT pg_postmaster_start_time() AS started;
            CREATE FUNCTION \(schema).slow_commit() RETURNS trigger LANGUAGE plpgsql AS
            'BEGIN
                IF pg_postmaster_start_time() = (SELECT started FROM \(schema).slow_server) THEN
                    PERFORM pg_sleep(60);
                END IF;
                RETURN NULL;
            END';
            CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON \(schema).bookings
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(schema).slow_commit();
            """
        #expect(try await psql(sql) == 0)
    }

    /// Polls until a backend sleeps in the trigger, that is, in the commit (up to 10 s). The
    /// statement it runs is not checked: the commit of a lone statement runs at `Sync`, under the
    /// statement's own text.
    func waitForSleepingCommit() async throws -> Bool {
        for _ in 0..<100 {
            let query =
                "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'"
            if try await psql(query, expectRow: true) == 0 { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Runs `sql` with psql; with `expectRow`, exits 0 only if it printed a row.
    func psql(_ sql: String, expectRow: Bool = false) async throws -> Int32 {
        let url = TestDatabase.url ?? ""
        let quoted = sql.replacingOccurrences(of: "'", with: "'\\''")
        let command =
            expectRow
            ? "timeout 30 psql -X -At -d '\(url)' -c '\(quoted)' 2>/dev/null | grep -q ."
            : "timeout 30 psql -X -q -v ON_ERROR_STOP=1 -d '\(url)' -c '\(quoted)' >/dev/null"
        return try await TestDatabase.shell(command)
    }
}
#endif
