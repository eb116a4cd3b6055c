#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import SlotSchedulerPostgres
import Testing

/// `bookings(at:startingIn:)` (what the OCPP bridge reads every second) answers as the
/// `Scheduler` does: the same bookings, windows and order, ids aside.
@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct StationBookingsTests {
    @Test func agreesWithTheScheduler() async throws {
        let store = try await TestDatabase.store(schema: TestDatabase.freshSchema("station_bookings"))
        let scheduler = Scheduler(rules: store.rules)
        let now = Fixture.now
        let requests: [(SocketID, Int, UserID)] = [("2", 9, 1), ("1", 9, 2), ("1", 10, 3), ("2", 12, 4), ("1", 14, 5)]
        var pairs: [(store: Booking, scheduler: Booking)] = []
        for (socket, hour, user) in requests {
            let request = ReservationRequest(slot: Fixture.slot("north", socket, hour: hour), user: user)
            pairs.append((try await store.reserve(request, at: now), try scheduler.reserve(request, at: now)))
        }
        let other = ReservationRequest(slot: Fixture.slot("south", "A", hour: 10), user: 6)
        _ = try await store.reserve(other, at: now)
        _ = try scheduler.reserve(other, at: now)
        _ = try await store.cancel(pairs[2].store.id, by: 3, at: now)
        _ = try scheduler.cancel(pairs[2].scheduler.id, by: 3, at: now)

        let starts = pairs.map(\.store.start)
        let windows = [
            starts[0]..<starts[3], starts[0]..<starts[0], starts[1]..<starts[4],
            Instant(secondsSinceEpoch: .min)..<Instant(secondsSinceEpoch: .max),
        ]
        for window in windows {
            let fromStore = try await store.bookings(at: "north", startingIn: window)
            let fromScheduler = scheduler.bookings(at: "north", startingIn: window)
            #expect(fromStore.map(\.slot) == fromScheduler.map(\.slot), "\(window)")
            #expect(fromStore.map(\.user) == fromScheduler.map(\.user), "\(window)")
            #expect(fromStore.allSatisfy { $0.status == .active })
        }
        #expect(try await store.bookings(at: "north", startingIn: starts[0]..<starts[3]).count == 2)
        #expect(try await store.bookings(at: "nowhere", startingIn: starts[0]..<starts[3]).isEmpty)
        await store.shutdown()
    }
}
#endif
