#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerPostgres

/// A database that ran migration 1 and holds bookings keeps every rule after migration 2.
@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct UpgradeTests {
    let now = Fixture.now

    @Test func bookingsMadeUnderV1KeepTheirRulesUnderV2() async throws {
        let schema = TestDatabase.freshSchema("upgrade")
        let v1 = try await TestDatabase.store(schema: schema, migrations: Schema.migrations.filter { $0.version == 1 })
        var old: [BookingID] = []
        for hour in 10..<13 {
            let request = ReservationRequest(
                slot: Fixture.slot(hour: hour), user: 7, requestID: hour == 10 ? "first" : nil)
            old.append(try await v1.reserveAsEarlierCode(request, at: now))
        }
        await v1.shutdown()

        let v2 = try await TestDatabase.store(schema: schema)
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
