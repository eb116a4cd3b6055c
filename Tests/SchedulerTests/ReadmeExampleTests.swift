import SlotScheduler
import Testing

@Suite("README example")
struct ReadmeExampleTests {
    /// The API example shown in README.md compiles and behaves as the README says.
    @Test func readmeExample() throws {
        // README-EXAMPLE-BEGIN
        let station = Station(
            id: "IST-1", name: "Kadıköy", city: "İstanbul", timeZone: "Europe/Istanbul",
            sockets: [Socket(id: "1", connector: .type2, powerKW: 22)])
        let policy = Policy(maxUpcomingBookings: 3, horizon: .lastDate(try LocalDate(parsing: "2022-12-31")))
        let scheduler = try Scheduler(stations: [station], policy: policy)

        let now = Instant.utc(try LocalDate(parsing: "2022-06-01"), hour: 9)
        let slot = Slot(station: "IST-1", socket: "1", date: try LocalDate(parsing: "2022-06-02"), hour: 14)
        let booking = try scheduler.reserve(ReservationRequest(slot: slot, user: 7), at: now)

        let refusal = try #require(throws: Rejection.self) {
            try scheduler.reserve(ReservationRequest(slot: slot, user: 8), at: now)
        }
        #expect(refusal.reason == .slotTaken)
        print(refusal.message(in: .english))  // IST-1/1 2022-06-02 14:00 is already booked.
        print(refusal.message(in: .turkish))  // IST-1/1 2022-06-02 14:00 dolu; başka bir saat seçin.

        try scheduler.cancel(booking.id, by: 7, at: now)
        #expect(try scheduler.status(of: slot, at: now) == .free)
        // README-EXAMPLE-END
        #expect(scheduler.allBookings.map(\.user) == [7])  // the second reservation was refused
        #expect(booking.start == Instant.utc(try LocalDate(parsing: "2022-06-02"), hour: 11))
    }
}
