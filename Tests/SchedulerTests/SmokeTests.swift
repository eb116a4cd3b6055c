import SlotScheduler
import Testing

/// A station in London with two sockets, used by the smoke tests.
func londonStation() -> Station {
    Station(
        id: "LON-1", name: "Greenmarket", city: "London", timeZone: "Europe/London",
        coordinate: Coordinate(latitude: 51.5, longitude: -0.12),
        sockets: [Socket(id: "1", connector: .type2, powerKW: 22), Socket(id: "2", connector: .ccs, powerKW: 50)])
}

/// Reserving a free slot succeeds, the same slot again is refused as taken.
@Test func reserveThenTaken() throws {
    var ledger = try Ledger(stations: [londonStation()], policy: Policy(maxUpcomingBookings: 3))
    let date = try LocalDate(year: 2018, month: 6, day: 10)
    let now = Instant.utc(try LocalDate(year: 2018, month: 6, day: 1), hour: 9)
    let slot = Slot(station: "LON-1", socket: "1", date: date, hour: 10)
    let booking = try ledger.reserve(ReservationRequest(slot: slot, user: 7), at: now)
    #expect(booking.slot == slot)
    #expect(booking.start == Instant.utc(date, hour: 9))  // BST: 10:00 local is 09:00 UTC
    #expect(throws: Rejection(.slotTaken, slot: slot, user: 8)) {
        try ledger.reserve(ReservationRequest(slot: slot, user: 8), at: now)
    }
    let scheduler = try Scheduler(stations: [londonStation()], policy: Policy(maxUpcomingBookings: 3))
    let b2 = try scheduler.reserve(ReservationRequest(slot: slot, user: 7), at: now)
    #expect(b2.start == booking.start)
    let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
    #expect(replayed.snapshot() == ledger.snapshot())
}
