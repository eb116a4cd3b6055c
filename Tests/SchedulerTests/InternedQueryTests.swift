import SlotScheduler
import Testing

@Suite("Interned queries: the SlotRef and station-index forms answer as the string-keyed ones")
struct InternedQueryTests {
    /// `status(of: SlotRef, at:)` equals `status(of: Slot, at:)` on every slot of every station over
    /// a DST change and past the horizon, with bookings, a closed socket and a cancellation.
    @Test func statusOfRefMatchesStatusOfSlot() throws {
        let last = try Fixture.date("2018-06-30")
        var ledger = try Fixture.ledger(
            Policy(maxUpcomingBookings: 3, horizon: .lastDate(last), minimumNotice: .seconds(7_200)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9, minute: 30)
        let cancelled = try ledger.reserve(Fixture.request(Fixture.slot(day, 16), user: 1), at: now)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 1), at: now)
        try ledger.cancel(cancelled.id, by: 1, at: now)
        try ledger.hold(Fixture.slot(day, 14), for: 2, at: now)
        try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        let dates = try ["2018-03-25", "2018-06-10", "2018-06-11", "2018-06-30", "2018-07-01"].map(Fixture.date)
        var seen = Set<SlotStatus>()
        for station in ledger.catalog.stations {
            for socket in station.sockets {
                for date in dates {
                    for hour in 0..<24 {
                        let slot = Fixture.slot(station.id, socket.id, date, hour)
                        let ref = try ledger.catalog.resolve(slot)
                        let status = try ledger.status(of: slot, at: now)
                        #expect(ledger.status(of: ref, at: now) == status, "\(slot)")
                        seen.insert(status)
                    }
                }
            }
        }
        #expect(seen == Set(SlotStatus.allCases))
    }

    /// `localDate(ofStation:at:)` equals `localDate(of:at:)` for every station around midnight in
    /// London and Istanbul.
    @Test func localDateOfStationIndexMatchesStationID() throws {
        let catalog = try Catalog(Fixture.stations)
        let day = try Fixture.day()
        for hour in [0, 20, 21, 22, 23] {
            for minute in [0, 59] {
                let now = Instant.utc(day, hour: hour, minute: minute)
                for (index, station) in catalog.stations.enumerated() {
                    let date = catalog.localDate(ofStation: Int32(index), at: now)
                    #expect(date == catalog.localDate(of: station.id, at: now))
                }
            }
        }
    }
}
