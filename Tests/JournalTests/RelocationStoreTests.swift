import Foundation
import SlotScheduler
import Testing

@testable import SlotSchedulerJournal

/// Resources that move, in the journal store: relocations at once all stand (each change is built
/// under the store's lock from the catalog then in service), a check-out can leave its resource
/// elsewhere, and a reopen — after a kill too — finds every station where it was left.
@Suite("Journal store: relocation")
struct RelocationStoreTests {
    static func place(_ i: Int) -> Coordinate { Coordinate(latitude: 51.5 + Double(i) / 100, longitude: -0.1) }

    @Test("relocations at once all stand, and survive a reopen")
    func relocationsAtOnceAllStand() async throws {
        let dir = JournalFixture.temporaryDirectory("relocation")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 2)
        let now = JournalFixture.now
        let stations = JournalFixture.stations.map(\.id)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, station) in stations.enumerated() {
                group.addTask { _ = try await store.relocate(station, to: Self.place(i), at: now) }
            }
            try await group.waitForAll()
        }
        let moved = stations.map { store.rules.catalog.station($0)?.coordinate }
        #expect(moved == stations.indices.map { Self.place($0) })
        #expect(store.rules.catalog.revision == stations.count)
        await store.close()
        let reopened = try JournalStore(directory: dir, rules: JournalFixture.rules)
        #expect(stations.map { reopened.rules.catalog.station($0)?.coordinate } == moved)
        await reopened.close()
    }

    @Test("a check-out leaves the vehicle where the ride ended; a bad place checks nothing out")
    func aCheckOutLeavesTheVehicle() async throws {
        let dir = JournalFixture.temporaryDirectory("relocation-check-out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 2)
        let slot = Slot(station: "S1", socket: "1", date: JournalFixture.firstDay, hour: 9)
        let booking = try await store.reserve(ReservationRequest(slot: slot, user: 7), at: JournalFixture.now)
        // A check-out refused (not checked in yet) moves nothing.
        let refused = await #expect(throws: Rejection.self) {
            _ = try await store.checkOut(booking.id, by: 7, leftAt: Self.place(3), at: booking.start)
        }
        #expect(refused?.reason == .notCheckedIn)
        #expect(store.rules.catalog.station("S1")?.coordinate == nil)
        _ = try await store.checkIn(booking.id, by: 7, at: booking.start)
        await #expect(throws: Rejection.self) {
            _ = try await store.checkOut(
                booking.id, by: 7, leftAt: Coordinate(latitude: 0, longitude: 200), at: booking.start + .seconds(60))
        }
        #expect(try await store.booking(booking.id)?.status == .active)
        let ended = try await store.checkOut(booking.id, by: 7, leftAt: Self.place(9), at: booking.start + .seconds(60))
        #expect(ended.status == .fulfilled)
        #expect(store.rules.catalog.station("S1")?.coordinate == Self.place(9))
        await store.close()
        let reopened = try JournalStore(directory: dir, rules: JournalFixture.rules)
        #expect(reopened.rules.catalog.station("S1")?.coordinate == Self.place(9))
        #expect(try await reopened.booking(booking.id)?.status == .fulfilled)
        await reopened.close()
    }
}
