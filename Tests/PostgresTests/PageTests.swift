#if Postgres  // the PostgreSQL store is built with `--traits Postgres` only (Package.swift)
import SlotScheduler
import SlotSchedulerPostgres
import Testing

/// A user's lists read a page at a time from PostgreSQL: the order of the in-memory lists,
/// where the catalog's order is not the slots' (ties at one start are ordered by slot, then by
/// id), page after page.
@Suite(
    .serialized, .sharedDatabase,
    .enabled(if: TestDatabase.url != nil, Comment(rawValue: TestDatabase.skipMessage)))
struct PageTests {
    /// Station "west" comes before "east" in the catalog, socket "b" before "a".
    static let stations = [
        Station(
            id: "west", name: "West", city: "Leeds", timeZone: "UTC",
            sockets: [Socket(id: "b", connector: .ccs, powerKW: 50), Socket(id: "a", connector: .ccs, powerKW: 50)]),
        Station(
            id: "east", name: "East", city: "Leeds", timeZone: "UTC",
            sockets: [Socket(id: "z", connector: .ccs, powerKW: 50), Socket(id: "c", connector: .ccs, powerKW: 50)]),
    ]
    static let policy = Policy(maxUpcomingBookings: 50)

    @Test func pagesFollowTheInMemoryLists() async throws {
        let store = try await TestDatabase.store(
            schema: TestDatabase.freshSchema("pages"), stations: Self.stations, policy: Self.policy)
        let scheduler = try Scheduler(stations: Self.stations, policy: Self.policy)
        let now = Fixture.now
        let day = Fixture.day
        let user: UserID = 7
        var made: [(store: BookingID, memory: BookingID)] = []
        // Every socket at 10:00 and 11:00, and one slot booked and cancelled three times.
        for hour in [10, 11] {
            for (station, socket) in [("west", "b"), ("west", "a"), ("east", "z"), ("east", "c")]
                as [(StationID, SocketID)]
            {
                let request = ReservationRequest(
                    slot: Slot(station: station, socket: socket, date: day, hour: hour), user: user)
                made.append(
                    (try await store.reserve(request, at: now).id, try await scheduler.reserve(request, at: now).id))
            }
        }
        for _ in 0..<3 {
            let request = ReservationRequest(slot: Slot(station: "east", socket: "c", date: day, hour: 12), user: user)
            let pair = (try await store.reserve(request, at: now).id, try await scheduler.reserve(request, at: now).id)
            made.append(pair)
            _ = try await store.cancel(pair.0, by: user, at: now)
            _ = try await scheduler.cancel(pair.1, by: user, at: now)
        }
        let toMemory = Dictionary(uniqueKeysWithValues: made.map { ($0.store, $0.memory) })
        for list in [BookingList.upcoming, .cancelled] {
            let expected = scheduler.bookings(of: user, at: now)[list]
            #expect(expected.count == (list == .upcoming ? 8 : 3))
            for limit in [1, 3, 8] {
                var read: [Booking] = []
                var offset = 0
                while true {
                    let page = try await store.bookings(
                        of: user, in: list, at: now, page: try PageRequest(offset: offset, limit: limit))
                    read += page.bookings.map { booking in
                        var copy = booking
                        copy.id = toMemory[booking.id] ?? BookingID(0)
                        return copy
                    }
                    #expect(page.bookings.count <= limit)
                    guard page.hasMore else { break }
                    offset += limit
                }
                #expect(read == expected, "\(list) in pages of \(limit)")
            }
        }
        await store.shutdown()
    }
}
#endif
