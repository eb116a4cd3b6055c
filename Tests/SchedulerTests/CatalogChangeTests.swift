import SlotScheduler
import Testing

/// Catalog changes on a live ledger and scheduler: what they add, retire, displace and keep, and
/// that the journal replays them to the same state.
@Suite struct CatalogChangeTests {
    static let paris = Station(
        id: "PAR", name: "Bastille", city: "Paris", timeZone: "Europe/Paris",
        sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])

    /// London with socket 2 retired and a socket 4 added; Heathrow retired; Paris added.
    static func changed() -> [Station] {
        var london = Fixture.london
        london.sockets = [london.sockets[0], london.sockets[2], Socket(id: "4", connector: .ccs, powerKW: 300)]
        return [london, Fixture.istanbul, paris, Fixture.cankiri, Fixture.izmir, Fixture.nowhere]
    }

    /// Bookings on London 1 (kept), London 2 (displaced), Heathrow (displaced), a past one on
    /// London 2 (kept as history), then the change.
    static func booked(_ ledger: inout Ledger) throws -> (kept: Booking, displaced: [Booking], past: Booking) {
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let past = try ledger.reserve(
            ReservationRequest(slot: Fixture.slot("LON", "2", try Fixture.date("2018-06-02"), 10), user: 3), at: now)
        let kept = try ledger.reserve(ReservationRequest(slot: Fixture.slot(day, 10), user: 1), at: now)
        let lon2 = try ledger.reserve(ReservationRequest(slot: Fixture.slot("LON", "2", day, 11), user: 1), at: now)
        let lhr = try ledger.reserve(ReservationRequest(slot: Fixture.slot("LHR", "A", day, 12), user: 2), at: now)
        return (kept, [lon2, lhr], past)
    }

    /// 2018-06-05 09:00 UTC: after the past booking, before the others.
    static let changeAt = Instant(secondsSinceEpoch: 1_528_189_200)

    @Test func addsRetiresAndDisplaces() throws {
        var ledger = try Fixture.ledger()
        let (kept, displaced, past) = try Self.booked(&ledger)
        let result = try ledger.changeCatalog(CatalogChange(stations: Self.changed()), at: Self.changeAt)
        #expect(result.displaced.map(\.id) == displaced.map(\.id))
        #expect(result.displaced.allSatisfy { $0.status == .displaced })
        #expect(result.difference.addedStations == ["PAR"])
        #expect(result.difference.retiredStations == ["LHR"])
        #expect(result.difference.changedStations == ["LON"])
        #expect(result.difference.addedSockets.map(\.description).sorted() == ["LON/4", "PAR/1"])
        #expect(result.difference.retiredSockets.map(\.description) == ["LHR/A", "LON/2"])
        #expect(result.revision == 1 && ledger.catalog.revision == 1)
        #expect(ledger.booking(kept.id) == kept)
        #expect(ledger.booking(past.id) == past, "a past booking on a retired socket stays history")
        #expect(displaced.allSatisfy { ledger.booking($0.id)?.status == .displaced })
        #expect(ledger.catalog.stations.map(\.id) == ["LON", "IST", "CKR", "IZM", "NOW", "PAR"])
        let day = try Fixture.day()
        let now = Self.changeAt
        // Retired: unknown; added: bookable; the user's limit counts what is left.
        #expect(throws: Rejection.self) {
            try ledger.reserve(ReservationRequest(slot: Fixture.slot("LON", "2", day, 14), user: 5), at: now)
        }
        #expect(
            (try? ledger.reserve(ReservationRequest(slot: Fixture.slot("LHR", "A", day, 14), user: 5), at: now))
                == nil)
        let onNew = try ledger.reserve(ReservationRequest(slot: Fixture.slot("LON", "4", day, 11), user: 1), at: now)
        let inParis = try ledger.reserve(ReservationRequest(slot: Fixture.slot("PAR", "1", day, 9), user: 5), at: now)
        #expect(onNew.slot.socket == "4" && inParis.slot.station == "PAR")
        #expect(ledger._consistencyProblems().isEmpty)
    }

    /// The journal replays the change to the same state (ids, statuses, catalog), and the next
    /// ids continue the same.
    @Test func theJournalReplaysTheChange() throws {
        var ledger = try Fixture.ledger()
        _ = try Self.booked(&ledger)
        try ledger.changeCatalog(CatalogChange(stations: Self.changed()), at: Self.changeAt)
        let day = try Fixture.day()
        _ = try ledger.reserve(ReservationRequest(slot: Fixture.slot("LON", "4", day, 11), user: 1), at: Self.changeAt)
        let replayed = try Ledger(
            rules: try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy),
            replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
        #expect(replayed.catalog.record == ledger.catalog.record)
        #expect(replayed.events == ledger.events)
        let scheduler = try Scheduler.restoring(
            rules: try Rules(catalog: try Catalog(Fixture.stations), policy: Fixture.policy), shards: 4,
            snapshot: Snapshot(bookings: [], overrides: []), replaying: ledger.events)
        #expect(scheduler.snapshot() == ledger.snapshot())
        #expect(scheduler.rules.catalog.record == ledger.catalog.record)
    }

    /// A scheduler builds the next one; its own apply refuses the command.
    @Test func aSchedulerBuildsTheNext() throws {
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler(shards: 1)  // the ledger's ids
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        for (slot, user) in [(Fixture.slot(day, 10), UserID(1)), (Fixture.slot("LHR", "A", day, 12), 2)] {
            _ = try ledger.reserve(ReservationRequest(slot: slot, user: user), at: now)
            _ = try scheduler.reserve(ReservationRequest(slot: slot, user: user), at: now)
        }
        let change = CatalogChange(stations: Self.changed())
        #expect(scheduler.apply(.changeCatalog(change), at: Self.changeAt).rejection?.reason == .catalogFixed)
        let (next, outcome) = scheduler.changingCatalog(change, at: Self.changeAt)
        let expected = ledger.apply(.changeCatalog(change), at: Self.changeAt)
        #expect(outcome == expected)
        #expect(next.allBookings == ledger.allBookings)
        #expect(next.rules.catalog.record == ledger.catalog.record)
    }

    /// `.refuse` refuses a change that would displace; a time zone move of a booked station is
    /// refused; an invalid list is refused naming its field; none changes anything.
    @Test func refusalsChangeNothing() throws {
        var ledger = try Fixture.ledger()
        _ = try Self.booked(&ledger)
        let before = ledger.snapshot()
        let refused = ledger.apply(
            .changeCatalog(CatalogChange(stations: Self.changed()), onBookings: .refuse), at: Self.changeAt)
        #expect(refused.rejection?.reason == .slotHasBookings && refused.rejection?.limit == 2)
        var moved = Fixture.stations
        moved[0].timeZone = "Europe/Paris"
        let zone = ledger.apply(.changeCatalog(CatalogChange(stations: moved)), at: Self.changeAt)
        #expect(zone.rejection?.reason == .timeZoneHasBookings && zone.rejection?.value == "LON")
        var invalid = Fixture.stations
        invalid[1].sockets = []
        let bad = ledger.apply(.changeCatalog(CatalogChange(stations: invalid)), at: Self.changeAt)
        #expect(bad.rejection?.reason == .invalidCatalog)
        #expect(bad.rejection?.value?.contains("stations[1].sockets") == true, "\(String(describing: bad.rejection))")
        #expect(ledger.snapshot() == before && ledger.catalog.revision == 0)
        // An unbooked station may move.
        var quiet = Fixture.stations
        quiet[5].timeZone = "Europe/Berlin"
        #expect(ledger.apply(.changeCatalog(CatalogChange(stations: quiet)), at: Self.changeAt).rejection == nil)
    }

    /// New regular hours displace the bookings in hours they close, except on a date an
    /// availability change set (to hours other than the regular ones: one that set the regular
    /// hours left nothing to keep); holds on closed slots are dropped.
    @Test func newHoursDisplaceOutsideOverrides() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let next = day.adding(days: 1)
        let early = try ledger.reserve(ReservationRequest(slot: Fixture.slot(day, 6), user: 1), at: now)
        try ledger.changeAvailability(
            AvailabilityChange(station: "LON", socket: "1", date: next, hours: HourSet(5..<24)), at: now)
        let overridden = try ledger.reserve(ReservationRequest(slot: Fixture.slot(next, 6), user: 1), at: now)
        let hold = try ledger.hold(Fixture.slot(day, 7), for: 2, at: now)
        var stations = Fixture.stations
        stations[0].sockets[0].openingHours = HourSet(8..<22)
        let result = try ledger.changeCatalog(CatalogChange(stations: stations), at: now)
        #expect(result.displaced.map(\.id) == [early.id])
        #expect(result.droppedHolds == [hold])
        #expect(ledger.booking(overridden.id)?.status == .active)
        #expect(ledger.holds(at: now).isEmpty)
        #expect(ledger._consistencyProblems().isEmpty)
    }

    /// A catalog's record restores the same catalog; a record naming a flat index twice is refused.
    @Test func recordsRoundTrip() throws {
        let catalog = try Catalog(Fixture.stations).changed(to: Self.changed())
        let restored = try Catalog(record: catalog.record)
        #expect(restored.record == catalog.record)
        #expect(restored.stations == catalog.stations)
        var broken = catalog.record
        broken.flatIndices[0][1] = broken.flatIndices[0][0]
        #expect(throws: InvalidValue.self) { try Catalog(record: broken) }
        // A station back in service keeps its indices.
        let back = try catalog.changed(to: Fixture.stations)
        let slot = Fixture.slot("LHR", "A", try Fixture.day(), 9)
        #expect(try back.resolve(slot) == (try Catalog(Fixture.stations).resolve(slot)))
    }
}
