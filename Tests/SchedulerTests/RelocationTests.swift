import Foundation
import SlotScheduler
import Testing

/// Resources that move (<doc:SharedVehicles>): a relocation gives one station a new coordinate as
/// a catalog change: a search by distance finds it there, bookings stay, a replay of the journal
/// and a restore put it there again.
@Suite("Relocation")
struct RelocationTests {
    /// By the river in Istanbul: Kadıköy's station (IST) is nearest once it is moved there.
    static let galata = Coordinate(latitude: 41.0256, longitude: 28.9744)

    static func nearest(_ ledger: Ledger, to place: Coordinate) throws -> StationID? {
        try ledger.rules.catalog.search(StationQuery(near: place)).stations.first?.station.id
    }

    @Test func aRelocationMovesOnlyTheStation() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let kept = try ledger.reserve(Fixture.request(Fixture.slot("IST", "1", day, 12), user: 1), at: now)
        let westminster = Coordinate(latitude: 51.4995, longitude: -0.1248)
        #expect(try Self.nearest(ledger, to: westminster) == "LON")
        let result = try ledger.relocate("IST", to: westminster, at: now)
        #expect(result.difference.changedStations == ["IST"] && result.displaced.isEmpty)
        #expect(ledger.rules.catalog.station("IST")?.coordinate == westminster)
        #expect(ledger.rules.catalog.station("LON")?.coordinate == Fixture.london.coordinate)
        let ranked = try ledger.rules.catalog.search(StationQuery(near: westminster)).stations.map(\.station.id)
        #expect(ranked.first == "IST", "ranked \(ranked)")
        #expect(ledger.booking(kept.id) == kept)
        // The journal and a snapshot put it there again.
        let replayed = try Ledger(rules: try Fixture.ledger().rules, replaying: ledger.events)
        #expect(replayed.rules.catalog.station("IST")?.coordinate == westminster)
        #expect(replayed.snapshot() == ledger.snapshot())
    }

    /// A place off the Earth and a station not in service are refused; nothing changes.
    @Test func badPlacesAndUnknownStationsAreRefused() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let events = ledger.eventCount
        for place in [
            Coordinate(latitude: 91, longitude: 0), Coordinate(latitude: 0, longitude: -180.5),
            Coordinate(latitude: .nan, longitude: 0),
        ] {
            #expect(refusal { try ledger.relocate("IST", to: place, at: now) }?.reason == .invalidCatalog)
        }
        #expect(refusal { try ledger.relocate("NOPE", to: Self.galata, at: now) }?.reason == .unknownStation)
        #expect(ledger.eventCount == events)
        #expect(ledger.rules.catalog.station("IST")?.coordinate == Fixture.istanbul.coordinate)
    }

    /// A scheduler keeps its catalog: a check-out that would move the station is refused
    /// before it checks anything out, and the booking stays checked in.
    @Test func aSchedulerRefusesBeforeItChecksOut() async throws {
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        let booking = try scheduler.reserve(
            Fixture.request(Fixture.slot("IST", "1", day, 12), user: 1), at: try Fixture.earlyNow())
        let start = booking.start
        _ = try await scheduler.checkIn(booking.id, by: 1, at: start)
        let refused = await #expect(throws: Rejection.self) {
            _ = try await scheduler.checkOut(booking.id, by: 1, leftAt: Self.galata, at: start + .seconds(60))
        }
        #expect(refused?.reason == .catalogFixed)
        #expect(scheduler.booking(booking.id)?.status == .active)
        await #expect(throws: Rejection.self) {
            _ = try await scheduler.relocate("IST", to: Self.galata, at: start)
        }
    }
}
