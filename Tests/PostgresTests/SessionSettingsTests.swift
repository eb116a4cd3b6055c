#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// The pool settings a team sets: every session of the store carries the application's name and
/// the statement timeout, as the server itself reports them.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct SessionSettingsTests {
    @Test(.databaseTestLimit) func sessionsCarryTheNameAndTheStatementTimeout() async throws {
        let url = try #require(TestDatabase.url)
        var configuration = try PostgresConfiguration(
            url: url + (url.contains("?") ? "&" : "?") + "application_name=bookings-eu%C3%A9-1",
            schema: TestDatabase.freshSchema("session"))
        #expect(configuration.applicationName == "bookings-eué-1")
        configuration.statementTimeout = .milliseconds(7_250)
        configuration.minimumConnections = 2
        let store = try await PostgresBookingService(
            configuration: configuration, stations: Fixture.stations, policy: Fixture.policy)
        defer { Task { await store.shutdown() } }
        let rows = try await store.rows(
            "SELECT current_setting('application_name'), current_setting('statement_timeout')")
        let (name, timeout) = try #require(rows.first).decode((String, String).self)
        // Non-ASCII is dropped, not sent (the server would replace it with '?').
        #expect(name == "bookings-eu-1")
        #expect(timeout == "7250ms")
    }

    /// Opening a store migrates its schema: the application's statement timeout bounds bookings,
    /// not that deploy step, so a timeout far shorter than a migration does not stop it.
    @Test(.databaseTestLimit) func migrationsRunWithoutTheStatementTimeout() async throws {
        var configuration = try PostgresConfiguration(
            url: try #require(TestDatabase.url), schema: TestDatabase.freshSchema("session_short"))
        configuration.statementTimeout = .milliseconds(1)
        let store = try await PostgresBookingService(
            configuration: configuration, stations: Fixture.stations, policy: Fixture.policy)
        await store.shutdown()
        // Read back without the 1 ms timeout, which any statement under load may hit.
        configuration.statementTimeout = nil
        let reader = try await PostgresBookingService(
            configuration: configuration, stations: Fixture.stations, policy: Fixture.policy)
        defer { Task { await reader.shutdown() } }
        let versions = try await reader.rows("SELECT count(*) FROM schema_migrations")
        #expect(try #require(versions.first).decode(Int.self) == Schema.migrations.count)
    }

    @Test func statementTimeoutsSaturateInWholeMilliseconds() throws {
        var configuration = try PostgresConfiguration(url: "postgres://u@h/db")
        func timeout(_ duration: Duration) -> String? {
            configuration.statementTimeout = duration
            return configuration.startupParameters.first { $0.0 == "statement_timeout" }?.1
        }
        #expect(timeout(.seconds(Int64.max)) == "2147483647")
        #expect(timeout(.seconds(-5)) == "1")
        #expect(timeout(.microseconds(10)) == "1")
        #expect(timeout(.milliseconds(1_500)) == "1500")
        configuration.statementTimeout = nil
        #expect(!configuration.startupParameters.contains { $0.0 == "statement_timeout" })
        #expect(configuration.startupParameters.first { $0.0 == "application_name" }?.1 == "slotscheduler")
    }
}
#endif
