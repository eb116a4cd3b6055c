#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
@testable import SlotSchedulerPostgres
import Testing

/// The schema's deploy steps (`schedule-sim db`): status, migrate, and grants that survive every
/// later migration.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct SchemaStepsTests {
    /// A runtime role granted on a schema of migrations 1 and 2 keeps working after the upgrade
    /// to the last one: migration 3 created the holds table, which the role was never granted;
    /// the migration step grants every recorded role again (migration 10 records those granted
    /// before it).
    @Test(.databaseTestLimit) func anUpgradeKeepsTheRuntimeRoleWorking() async throws {
        let schema = TestDatabase.freshSchema("grants")
        let role = "rt_\(schema)"
        #expect(try await LeastPrivilegeTests().psql("CREATE ROLE \(role) LOGIN", as: "postgres") == 0)
        let owner = try await TestDatabase.store(schema: schema, migrations: Array(Schema.migrations.prefix(2)))
        try await owner.grantRuntimeAccess(to: role)
        await owner.shutdown()

        let configuration = try TestDatabase.configuration(schema: schema)
        let before = try await SchemaSteps.status(configuration)
        #expect(before.filter { $0.appliedAt == nil }.map(\.version) == Array(3...Schema.migrations.last!.version))
        let applied = try await SchemaSteps.migrate(configuration)
        #expect(applied == Array(3...Schema.migrations.last!.version))
        #expect(try await SchemaSteps.migrate(configuration).isEmpty)
        #expect(try await SchemaSteps.status(configuration).allSatisfy { $0.appliedAt != nil && $0.isKnown })

        let runtime = try await PostgresBookingService(
            configuration: try LeastPrivilegeTests().runtimeConfiguration(role: role, schema: schema),
            stations: Fixture.stations, policy: Fixture.policy)
        let booking = try await runtime.reserve(.init(slot: Fixture.slot(hour: 10), user: 1), at: Fixture.now)
        _ = try await runtime.hold(Fixture.slot(hour: 11), for: 2, reminder: nil, at: Fixture.now)
        _ = try await runtime.cancel(booking.id, by: 1, at: Fixture.now)
        let page = try await runtime.bookings(of: 1, in: .cancelled, at: Fixture.now, page: try PageRequest())
        #expect(page.bookings.map(\.id) == [booking.id])
        await runtime.shutdown()
    }

    /// A fresh schema: everything pending, then applied by one step; a version the schema holds
    /// that this code does not know (newer code ran it) is listed as such.
    @Test(.databaseTestLimit) func statusListsAppliedPendingAndUnknown() async throws {
        let configuration = try TestDatabase.configuration(schema: TestDatabase.freshSchema("status"))
        #expect(try await SchemaSteps.status(configuration).allSatisfy { $0.appliedAt == nil })
        #expect(try await SchemaSteps.migrate(configuration) == Schema.migrations.map(\.version))
        let unknown = Schema.migrations.last!.version + 1
        #expect(
            try await LeastPrivilegeTests().psql(
                "INSERT INTO \(configuration.schema).schema_migrations (version, name) VALUES (\(unknown), 'newer')",
                as: "postgres") == 0)
        let list = try await SchemaSteps.status(configuration)
        #expect(list.last == .init(version: unknown, name: "newer", appliedAt: list.last?.appliedAt, isKnown: false))
        #expect(list.allSatisfy { $0.appliedAt != nil })
    }

    @Test func aRoleNameIsChecked() async throws {
        let configuration = try TestDatabase.configuration(schema: "public")
        await #expect(throws: PostgresStoreError.self) {
            try await SchemaSteps.grantRuntimeAccess(configuration, to: "x; DROP TABLE bookings")
        }
    }
}
#endif
