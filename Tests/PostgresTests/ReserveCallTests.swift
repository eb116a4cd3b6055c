#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// Migration 15 as compiled is its file, split into its statements.
@Suite struct ReserveCallMigrationTests {
    @Test func theCompiledMigrationIsItsFile() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SlotSchedulerPostgres/Migrations/v15.sql")
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(Schema.migrations.first { $0.version == 15 }?.sql == text)
        // The procedure and the grants: the splitter ends neither inside a `$fn$` body.
        #expect(PostgresBookingService.statements(of: text).count == 2)
        #expect(PostgresBookingService.reservesInOneCall(Schema.migrations))
        #expect(!PostgresBookingService.reservesInOneCall(Schema.migrations.filter { $0.version <= 14 }))
    }
}

/// A reservation is one `CALL slot_reserve_committed(...)` (migration 15), which commits before it
/// answers; a schema before migration 15 keeps the explicit transaction.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct ReserveCallTests {
    /// The procedure's `COMMIT` is refused inside a transaction block, so a caller that opened one
    /// gets an error and nothing is written, rather than a commit before its own; sent alone, the
    /// same call books.
    @Test(.databaseTestLimit) func theProcedureCommitsOnlyWhenCalledAlone() async throws {
        let schema = TestDatabase.freshSchema("call")
        let store = try await TestDatabase.store(schema: schema)
        defer { Task { await store.shutdown() } }
        let request = ReservationRequest(slot: Fixture.slot(hour: 10), user: 7)
        let ref = try store.rules.resolve(request)
        let (reason, start) = store.rules.timeCheck(ref, reminderSeconds: nil, at: Fixture.now)
        #expect(reason == nil)
        let call = """
            CALL slot_reserve_committed(\(store.policyVersion), \(ref.station), \(ref.socket), \
            \(ref.day), \(ref.hour), 7, NULL, NULL, \(Fixture.now.secondsSinceEpoch), \(start.secondsSinceEpoch), \
            NULL, \(Int32(bitPattern: store.layout.regular[Int(ref.socket)])), 10, \
            NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
            """
        // The schema's functions are found through the search path, as the store's sessions set it;
        // each -c is a query of its own, so the SET is not a transaction block around the CALL.
        let url = TestDatabase.url ?? ""
        let psql = "timeout 30 psql -X -q -v ON_ERROR_STOP=1 -d '\(url)' -c 'SET search_path = \(schema)'"
        let inBlock = try await TestDatabase.shell("\(psql) -c 'BEGIN; \(call); COMMIT' >/dev/null 2>&1")
        #expect(inBlock != 0)
        #expect(try await store.allBookingsByID().isEmpty)

        let alone = try await TestDatabase.shell("\(psql) -c '\(call)' >/dev/null 2>&1")
        #expect(alone == 0)
        let stored = try await store.allBookingsByID()
        #expect(stored.map(\.slot) == [request.slot] && stored.map(\.user) == [7])
    }

    /// On a schema before migration 15 the store books in its explicit transaction, and refuses
    /// a taken slot, as before.
    @Test(.databaseTestLimit) func aSchemaBeforeMigration15KeepsTheTransaction() async throws {
        let schema = TestDatabase.freshSchema("precall")
        let store = try await TestDatabase.store(
            schema: schema, migrations: Schema.migrations.filter { $0.version <= 14 })
        defer { Task { await store.shutdown() } }
        #expect(!store.reservesInOneCall)
        let booking = try await store.reserve(
            ReservationRequest(slot: Fixture.slot(hour: 10), user: 7, requestID: "first"), at: Fixture.now)
        let repeated = try await store.book(
            ReservationRequest(slot: Fixture.slot(hour: 10), user: 7, requestID: "first"), at: Fixture.now)
        #expect(repeated.booking.id == booking.id && repeated.isReplay)
        await #expect {
            _ = try await store.reserve(ReservationRequest(slot: Fixture.slot(hour: 10), user: 8), at: Fixture.now)
        } throws: { ($0 as? Rejection)?.reason == .slotTaken }
        #expect(try await store.allBookingsByID().map(\.id) == [booking.id])
    }
}
#endif
