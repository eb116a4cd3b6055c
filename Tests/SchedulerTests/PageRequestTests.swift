import SlotScheduler
import Testing

/// A page of a user's list is asked for with a checked request, and cut from the lists in order.
@Suite struct PageRequestTests {
    /// No store is asked for a negative offset, an empty page or one longer than the maximum;
    /// any offset, however large, is an empty page.
    @Test func aPageIsBounded() {
        #expect(throws: InvalidValue.self) { try PageRequest(offset: -1, limit: 10) }
        #expect(throws: InvalidValue.self) { try PageRequest(offset: 0, limit: 0) }
        #expect(throws: InvalidValue.self) { try PageRequest(offset: 0, limit: PageRequest.maximumLimit + 1) }
        #expect((try? PageRequest(offset: Int.max, limit: PageRequest.maximumLimit)) != nil)
    }

    @Test func pagesCutTheListsInOrder() throws {
        let scheduler = try Scheduler(
            stations: [
                Station(
                    id: "s", name: "S", city: "C", timeZone: "UTC",
                    sockets: [Socket(id: "1", connector: .ccs, powerKW: 50)])
            ], policy: Policy(maxUpcomingBookings: 10))
        let day = LocalDate(dayNumber: 20_000)
        let now = Instant.utc(day, hour: 0)
        for hour in 5..<10 {
            _ = try scheduler.reserve(
                ReservationRequest(slot: Slot(station: "s", socket: "1", date: day, hour: hour), user: 1), at: now)
        }
        let all = scheduler.bookings(of: 1, at: now)
        var read: [Booking] = []
        for offset in stride(from: 0, through: 6, by: 2) {
            let page = all.page(.upcoming, try PageRequest(offset: offset, limit: 2))
            read += page.bookings
            #expect(page.hasMore == (offset + 2 < 5))
        }
        #expect(read == all.upcoming && read.count == 5)
        #expect(
            all.page(.upcoming, try PageRequest(offset: Int.max, limit: 500))
                == BookingPage(bookings: [], hasMore: false))
    }
}
