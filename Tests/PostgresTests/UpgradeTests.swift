#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import PostgresNIO
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// A database that ran migration 1 and holds bookings keeps every rule after the later
/// migrations, and every migration leaves the schema with exactly the tables it should have.
@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct UpgradeTests {
    let now = Fixture.now

    /// The tables of the schema after every migration (v6 dropped v1's `user_quota`, v10 added
    /// `runtime_roles`).
    static let tables = [
        "availability", "availability_changes", "bookings", "catalog_changes", "deployment", "holds",
        "reschedule_requests",
        "runtime_roles", "schema_migrations", "sockets", "stations",
    ]

    /// The tables of `schema`, by name.
    static func tables(of store: PostgresBookingService, schema: String) async throws -> [String] {
        try await store.rows(
            "SELECT tablename::text FROM pg_catalog.pg_tables WHERE schemaname = \(schema) ORDER BY tablename"
        ).map { try $0.decode(String.self) }
    }

    /// A fresh schema gets every migration, numbered 1, 2, … in order, and exactly ``tables``.
    @Test func freshSchemaHasEveryMigrationAndTheTables() async throws {
        let schema = TestDatabase.freshSchema("tables")
        let store = try await TestDatabase.store(schema: schema)
        #expect(Schema.migrations.map(\.version) == Array(1...Int32(Schema.migrations.count)))
        let applied = try await store.rows("SELECT version FROM schema_migrations ORDER BY version").map {
            try $0.decode(Int32.self)
        }
        #expect(applied == Schema.migrations.map(\.version))
        #expect(try await Self.tables(of: store, schema: schema) == Self.tables)
        await store.shutdown()
    }

    @Test func bookingsMadeUnderV1KeepTheirRulesUnderV2() async throws {
        let schema = TestDatabase.freshSchema("upgrade")
        let v1 = try await TestDatabase.store(schema: schema, migrations: Schema.migrations.filter { $0.version == 1 })
        var old: [BookingID] = []
        for hour in 10..<13 {
            let request = ReservationRequest(
                slot: Fixture.slot(hour: hour), user: 7, requestID: hour == 10 ? "first" : nil)
            old.append(try await v1.reserveAsEarlierCode(request, at: now))
        }
        let v1Tables = [
            "availability", "availability_changes", "bookings", "deployment", "schema_migrations", "sockets",
            "stations", "user_quota",
        ]
        #expect(try await Self.tables(of: v1, schema: schema) == v1Tables)
        #expect(
            try await v1.rows("SELECT n FROM user_quota WHERE user_id = 7").map { try $0.decode(Int32.self) } == [3])
        await v1.shutdown()

        let v2 = try await TestDatabase.store(schema: schema)
        #expect(try await Self.tables(of: v2, schema: schema) == Self.tables, "user_quota is dropped")
        // The limit (3) counts the bookings made before the upgrade.
        do {
            _ = try await v2.reserve(ReservationRequest(slot: Fixture.slot(hour: 14), user: 7), at: now)
            Issue.record("a fourth upcoming booking was accepted after the upgrade")
        } catch let refusal as Rejection {
            #expect(refusal.reason == .userLimitReached)
        }
        // A request id from before the upgrade returns its booking; the old slots stay taken.
        let repeated = try await v2.reserve(
            ReservationRequest(slot: Fixture.slot(hour: 10), user: 7, requestID: "first"), at: now)
        #expect(repeated.id == old[0])
        do {
            _ = try await v2.reserve(ReservationRequest(slot: Fixture.slot(hour: 11), user: 8), at: now)
            Issue.record("a slot booked under v1 was booked again under v2")
        } catch let refusal as Rejection {
            #expect(refusal.reason == .slotTaken)
        }
        // Cancelling an old booking frees a place and the slot.
        _ = try await v2.cancel(old[1], by: 7, at: now)
        _ = try await v2.reserve(ReservationRequest(slot: Fixture.slot(hour: 14), user: 7), at: now)
        _ = try await v2.reserve(ReservationRequest(slot: Fixture.slot(hour: 11), user: 8), at: now)
        let active = try await v2.allBookingsByID().filter { $0.status == .active }
        #expect(active.count == 4)
        #expect(invariantViolations(active, rules: v2.rules, at: now).isEmpty)
        await v2.shutdown()
    }
}
#endif
