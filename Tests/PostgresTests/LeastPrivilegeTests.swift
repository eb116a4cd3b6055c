#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import SlotSchedulerPostgres
import Testing

/// The service runs as a role that may use the store's tables and functions but not change the
/// schema; the migrations are applied by the owner role.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct LeastPrivilegeTests {
    func runtimeConfiguration(role: String, schema: String) throws -> PostgresConfiguration {
        var config = try TestDatabase.configuration(schema: schema)
        config.username = role
        config.password = nil
        config.schemaChanges = .never
        return config
    }

    /// Runs `sql` with psql as `role`; returns psql's exit status.
    func psql(_ sql: String, as role: String) async throws -> Int32 {
        var parts = URLComponents(string: TestDatabase.url ?? "") ?? URLComponents()
        parts.user = role
        let quoted = sql.replacingOccurrences(of: "'", with: "'\\''")
        return try await TestDatabase.shell(
            "timeout 30 psql -X -q -v ON_ERROR_STOP=1 -d '\(parts.string ?? "")' -c '\(quoted)' >/dev/null 2>&1")
    }

    @Test(.databaseTestLimit) func runtimeRoleBooksButCannotChangeTheSchema() async throws {
        let schema = TestDatabase.freshSchema("priv")
        let role = "rt_\(schema)"
        #expect(try await psql("CREATE ROLE \(role) LOGIN", as: "postgres") == 0)
        let owner = try await TestDatabase.store(schema: schema)
        // Without PUBLIC's default EXECUTE, as a locked-down deployment has it: the role runs the
        // store's functions and its procedure (a reservation, migration 15) through its grants.
        #expect(try await psql("REVOKE EXECUTE ON ALL ROUTINES IN SCHEMA \(schema) FROM PUBLIC", as: "postgres") == 0)
        try await owner.grantRuntimeAccess(to: role)
        await owner.shutdown()

        let runtime = try await PostgresBookingService(
            configuration: try runtimeConfiguration(role: role, schema: schema), stations: Fixture.stations,
            policy: Fixture.policy)
        let booking = try await runtime.reserve(.init(slot: Fixture.slot(hour: 10), user: 1), at: Fixture.now)
        _ = try await runtime.cancel(booking.id, by: 1, at: Fixture.now)
        _ = try await runtime.changeAvailability(.close("south", socket: "A", on: Fixture.day), at: Fixture.now)
        #expect(try await runtime.booking(booking.id)?.status == .cancelled)
        await runtime.shutdown()

        for ddl in [
            "ALTER TABLE \(schema).bookings ADD COLUMN x integer", "DROP TABLE \(schema).availability",
            "CREATE TABLE \(schema).extra (x integer)", "DELETE FROM \(schema).schema_migrations",
            "UPDATE \(schema).sockets SET regular_mask = 0",
        ] {
            #expect(try await psql(ddl, as: role) != 0, "the runtime role could run: \(ddl)")
        }
        #expect(try await psql("SELECT count(*) FROM \(schema).bookings", as: role) == 0)
    }

    @Test(.databaseTestLimit) func runtimeRoleRefusesAnUndeployedSchema() async throws {
        let schema = TestDatabase.freshSchema("undeployed")
        await #expect {
            _ = try await PostgresBookingService(
                configuration: try runtimeConfiguration(role: "postgres", schema: schema),
                stations: Fixture.stations, policy: Fixture.policy)
        } throws: { ($0 as? PostgresStoreError)?.kind == .schemaNotReady }
    }
}
#endif
