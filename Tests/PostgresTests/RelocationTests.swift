#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import Foundation
import SlotScheduler
@testable import SlotSchedulerPostgres
import Testing

/// Resources that move, on a two-instance deployment: relocations sent in turn or at once to both
/// instances all stand (each is built in its transaction from the deployment's catalog, locked), a check-out
/// leaves its resource where the ride ended, and an instance started later finds every station
/// where it was left.
@Suite(.sharedDatabase, .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct RelocationTests {
    static func place(_ i: Int) -> Coordinate { Coordinate(latitude: 53.7 + Double(i) / 100, longitude: -0.3) }

    @Test(.databaseTestLimit) func relocationsFromTwoInstancesAllStand() async throws {
        let schema = TestDatabase.freshSchema("relocation")
        let first = try await TestDatabase.store(schema: schema)
        let second = try await TestDatabase.store(schema: schema)
        let stations = Fixture.stations.map(\.id)
        // In turn, each instance's catalog one move behind the other's: a change built from the
        // instance's own catalog would put the other's last move back.
        for (i, station) in stations.enumerated() {
            _ = try await (i % 2 == 0 ? first : second).relocate(station, to: Self.place(i), at: Fixture.now)
        }
        let reader = try await TestDatabase.store(schema: schema)
        #expect(
            stations.map { reader.rules.catalog.station($0)?.coordinate } == stations.indices.map { Self.place($0) })
        await reader.shutdown()
        // And at once, from both.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, station) in stations.enumerated() {
                let store = i % 2 == 0 ? second : first
                group.addTask { _ = try await store.relocate(station, to: Self.place(i + 10), at: Fixture.now) }
            }
            try await group.waitForAll()
        }
        await first.shutdown()
        await second.shutdown()
        let later = try await TestDatabase.store(schema: schema)
        #expect(
            stations.map { later.rules.catalog.station($0)?.coordinate } == stations.indices.map { Self.place($0 + 10) }
        )
        #expect(later.rules.catalog.revision == 2 * stations.count)
        await later.shutdown()
    }

    @Test(.databaseTestLimit) func aCheckOutLeavesTheResourceWhereTheRideEnded() async throws {
        let schema = TestDatabase.freshSchema("relocation_checkout")
        let store = try await TestDatabase.store(schema: schema)
        let booking = try await store.reserve(
            ReservationRequest(slot: Fixture.slot("north", "1", hour: 10), user: 1), at: Fixture.now)
        _ = try await store.checkIn(booking.id, by: 1, at: booking.start)
        let off = Coordinate(latitude: -91, longitude: 0)
        #expect(
            await refusal { try await store.checkOut(booking.id, by: 1, leftAt: off, at: booking.start) }?.reason
                == .invalidCatalog)
        #expect(try await store.booking(booking.id)?.status == .active)
        let ended = try await store.checkOut(booking.id, by: 1, leftAt: Self.place(5), at: booking.start + .seconds(60))
        #expect(ended.status == .fulfilled)
        #expect(store.rules.catalog.station("north")?.coordinate == Self.place(5))
        await store.shutdown()
        let later = try await TestDatabase.store(schema: schema)
        #expect(later.rules.catalog.station("north")?.coordinate == Self.place(5))
        await later.shutdown()
    }
}
#endif
