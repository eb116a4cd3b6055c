import Foundation
import SlotScheduler
import SlotSchedulerJournal
import Testing

/// A catalog change on the journal store: acknowledged once durable, kept in a snapshot, and
/// reopened with whatever catalog the store is opened with (the first or the new one).
@Suite struct CatalogChangeStoreTests {
    /// S1 retired, S0 with socket 2 retired and a socket 3 added, S9 added.
    static func changed() -> [Station] {
        var s0 = JournalFixture.stations[0]
        s0.sockets = [s0.sockets[0], Socket(id: "3", connector: .ccs, powerKW: 150)]
        let s9 = Station(
            id: "S9", name: "Station 9", city: "Leeds", timeZone: "Europe/London",
            sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])
        return [s0, JournalFixture.stations[2], s9]
    }

    static func slot(_ station: StationID, _ socket: SocketID, _ hour: Int) -> Slot {
        Slot(station: station, socket: socket, date: JournalFixture.firstDay, hour: hour)
    }

    @Test(arguments: [false, true])
    func aChangeSurvivesReopening(withTheNewCatalog: Bool) async throws {
        let dir = JournalFixture.temporaryDirectory("catalog-change")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let now = JournalFixture.now
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 4)
        let kept = try await store.reserve(ReservationRequest(slot: Self.slot("S0", "1", 10), user: 1), at: now)
        let onRetired = try await store.reserve(ReservationRequest(slot: Self.slot("S1", "1", 10), user: 2), at: now)
        let result = try await store.changeCatalog(CatalogChange(stations: Self.changed()), at: now)
        #expect(result.displaced.map(\.id) == [onRetired.id])
        let added = try await store.reserve(ReservationRequest(slot: Self.slot("S9", "1", 10), user: 2), at: now)
        let before = try await store.allBookingsByID()
        await store.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).contains { $0.hasSuffix(".snap") })

        let given =
            withTheNewCatalog
            ? try Rules(catalog: try Catalog(Self.changed()), policy: JournalFixture.rules.policy)
            : JournalFixture.rules
        let reopened = try JournalStore(directory: dir, rules: given, shards: 4)
        #expect(reopened.catalogIsStored && reopened.rules.catalog.revision == 1)
        #expect(try await reopened.allBookingsByID() == before)
        #expect(try await reopened.booking(kept.id)?.status == .active)
        #expect(try await reopened.booking(onRetired.id)?.status == .displaced)
        #expect(try await reopened.booking(added.id)?.slot.station == "S9")
        await #expect(throws: Rejection.self) {
            try await reopened.reserve(ReservationRequest(slot: Self.slot("S1", "2", 11), user: 3), at: now)
        }
        await reopened.close()
    }

    /// A refused change writes nothing and leaves the store on its catalog.
    @Test func aRefusedChangeWritesNothing() async throws {
        let dir = JournalFixture.temporaryDirectory("catalog-refused")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let now = JournalFixture.now
        let store = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 4)
        _ = try await store.reserve(ReservationRequest(slot: Self.slot("S1", "1", 10), user: 2), at: now)
        await #expect(throws: Rejection.self) {
            try await store.changeCatalog(CatalogChange(stations: Self.changed()), onBookings: .refuse, at: now)
        }
        #expect(store.rules.catalog.revision == 0)
        await store.close()
        let reopened = try JournalStore(directory: dir, rules: JournalFixture.rules, shards: 4)
        #expect(!reopened.catalogIsStored)
        #expect(try await reopened.allBookingsByID().count == 1)
        await reopened.close()
    }
}
