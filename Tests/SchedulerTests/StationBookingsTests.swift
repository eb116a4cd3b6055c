import SlotScheduler
import Testing

/// `Scheduler.bookings(at:startingIn:)`: a station's active bookings whose start lies in a window.
@Suite("StationBookingsTests")
struct StationBookingsTests {
    /// Starts at the window's lower bound are in, at its upper bound out; cancelled and other
    /// stations' bookings are not listed; the order is start, then slot.
    @Test func listsTheStationsActiveBookingsStartingInTheWindow() throws {
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 20))
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        func book(_ station: StationID, _ socket: SocketID, _ hour: Int, _ user: UserID) throws -> Booking {
            try scheduler.reserve(
                ReservationRequest(slot: Fixture.slot(station, socket, day, hour), user: user), at: now)
        }
        let nine2 = try book("LON", "2", 9, 1)
        let nine1 = try book("LON", "1", 9, 2)
        let ten = try book("LON", "3", 10, 3)
        let eleven = try book("LON", "1", 11, 4)
        _ = try book("LHR", "A", 10, 5)
        let cancelled = try book("LON", "2", 10, 6)
        _ = try scheduler.cancel(cancelled.id, by: 6, at: now)

        let window = nine1.start..<eleven.start
        #expect(scheduler.bookings(at: "LON", startingIn: window).map(\.id) == [nine1.id, nine2.id, ten.id])
        #expect(scheduler.bookings(at: "LON", startingIn: ten.start..<ten.start).isEmpty)
        #expect(scheduler.bookings(at: "NOPE", startingIn: window).isEmpty)
        #expect(scheduler.bookings(at: "LHR", startingIn: window).map(\.slot.socket) == ["A"])
        let everything = Instant(secondsSinceEpoch: .min)..<Instant(secondsSinceEpoch: .max)
        #expect(scheduler.bookings(at: "LON", startingIn: everything).count == 4)
    }

    /// On the autumn DST day, both 01:00 hours are found by their instants.
    @Test func findsBothHoursOfAFallBackDay() throws {
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 20))
        let day = try Fixture.date("2018-10-28")
        let now = try Fixture.earlyNow()
        let zero = try scheduler.reserve(
            ReservationRequest(slot: Fixture.slot("LON", "1", day, 0), user: 1), at: now)
        let one = try scheduler.reserve(
            ReservationRequest(slot: Fixture.slot("LON", "1", day, 1), user: 2), at: now)
        let two = try scheduler.reserve(
            ReservationRequest(slot: Fixture.slot("LON", "1", day, 2), user: 3), at: now)
        let found = scheduler.bookings(at: "LON", startingIn: zero.start..<two.start.offsetForTest(1))
        #expect(found.map(\.id) == [zero.id, one.id, two.id])
        #expect(scheduler.bookings(at: "LON", startingIn: one.start..<two.start).map(\.id) == [one.id])
    }
}

extension Instant {
    fileprivate func offsetForTest(_ seconds: Int64) -> Instant {
        Instant(secondsSinceEpoch: secondsSinceEpoch + seconds)
    }
}
