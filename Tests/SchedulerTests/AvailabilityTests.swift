import SlotScheduler
import Testing

@Suite("Availability: per-date changes, displacement and refusal")
struct AvailabilityTests {
    /// Books socket 1 at 10:00 and 14:00 and socket 2 at 10:00 on the fixture day, for users 1, 2, 3.
    private static func bookThree(_ ledger: inout Ledger) throws -> [Booking] {
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        return [
            try ledger.reserve(Fixture.request(Fixture.slot(day, 14), user: 1), at: now),
            try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 2), at: now),
            try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 10), user: 3), at: now),
        ]
    }

    /// Closing a socket with `.displace` returns its bookings (by hour) as displaced, emits events, and closes the slots.
    @Test func displaceReportsBookings() throws {
        var ledger = try Fixture.ledger()
        let booked = try Self.bookThree(&ledger)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let eventsBefore = ledger.eventCount
        let change = AvailabilityChange.close("LON", socket: "1", on: day)
        let displaced = try ledger.changeAvailability(change, onBookings: .displace, at: now)
        #expect(displaced.map(\.id) == [booked[1].id, booked[0].id])
        #expect(displaced.allSatisfy { $0.status == .displaced })
        #expect(ledger.booking(booked[0].id)?.status == .displaced)
        #expect(ledger.booking(booked[1].id)?.status == .displaced)
        #expect(ledger.booking(booked[2].id)?.status == .active)
        #expect(
            ledger.events(since: eventsBefore) == [
                .availabilityChanged(change, at: now),
                .displaced(booked[1].id, user: 2, at: now),
                .displaced(booked[0].id, user: 1, at: now),
            ])
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 4), at: now) }?.reason
                == .socketClosed)
        #expect(ledger.bookings(of: 1, at: now).upcoming.isEmpty)
        #expect(ledger.bookings(of: 3, at: now).upcoming.map(\.id) == [booked[2].id])
        #expect(
            ledger.snapshot().overrides == [AvailabilityChange(station: "LON", socket: "1", date: day, hours: .closed)])
    }

    /// A displaced booking frees its user's place under the limit and cannot be cancelled again.
    @Test func displacedBookingFreesLimit() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1))
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        try ledger.changeAvailability(.close("LON", socket: "1", on: day), at: now)
        #expect(refusal { try ledger.cancel(booking.id, by: 1, at: now) }?.reason == .alreadyCancelled)
        _ = try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 10), user: 1), at: now)
    }

    /// Narrowing the hours displaces only bookings in hours that close.
    @Test func setHoursDisplacesOnlyClosedHours() throws {
        var ledger = try Fixture.ledger()
        let booked = try Self.bookThree(&ledger)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let displaced = try ledger.changeAvailability(.setHours(HourSet(8..<12), "LON", socket: "1", on: day), at: now)
        #expect(displaced.map(\.id) == [booked[0].id])
        #expect(ledger.booking(booked[1].id)?.status == .active)
        #expect(try ledger.status(of: Fixture.slot(day, 14), at: now) == .outsideHours)
        #expect(try ledger.status(of: Fixture.slot(day, 11), at: now) == .free)
    }

    /// Closing a whole station (socket `nil`) displaces the bookings of every socket, sorted by socket then hour.
    @Test func closeWholeStation() throws {
        var ledger = try Fixture.ledger()
        let booked = try Self.bookThree(&ledger)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let displaced = try ledger.changeAvailability(.close("LON", socket: nil, on: day), at: now)
        #expect(displaced.map(\.id) == [booked[1].id, booked[0].id, booked[2].id])
        let view = try ledger.dayView(of: "LON", on: day, at: now)
        #expect(view.sockets.allSatisfy { $0.hours.allSatisfy { $0 == .closed } })
        // The next date is untouched.
        #expect(try ledger.status(of: Fixture.slot(day.adding(days: 1), 10), at: now) == .free)
    }

    /// With `.refuse`, a change that would close booked hours is refused with `slotHasBookings` and nothing changes.
    @Test func refuseChangesNothing() throws {
        var ledger = try Fixture.ledger()
        _ = try Self.bookThree(&ledger)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let before = ledger.snapshot()
        let events = ledger.events
        let r = try #require(
            refusal { try ledger.changeAvailability(.close("LON", socket: nil, on: day), onBookings: .refuse, at: now) }
        )
        #expect(r.reason == .slotHasBookings)
        #expect(r.limit == 3)
        #expect(r.value == "LON/* 2018-06-10: closed")
        #expect(ledger.snapshot() == before)
        #expect(ledger.events == events)
        #expect(try ledger.status(of: Fixture.slot("LON", "2", day, 11), at: now) == .free)
    }

    /// With `.refuse`, a change that closes only free hours applies.
    @Test func refuseAppliesWhenNothingIsInTheWay() throws {
        var ledger = try Fixture.ledger()
        _ = try Self.bookThree(&ledger)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let displaced = try ledger.changeAvailability(
            .setHours(HourSet(9..<15), "LON", socket: "1", on: day), onBookings: .refuse, at: now)
        #expect(displaced.isEmpty)
        #expect(try ledger.status(of: Fixture.slot(day, 15), at: now) == .outsideHours)
    }

    /// Reopening restores the socket's regular hours, and the override disappears from the snapshot.
    @Test func reopenRestoresRegularHours() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        try ledger.changeAvailability(.close("LON", socket: "3", on: day), at: now)
        #expect(try ledger.status(of: Fixture.slot("LON", "3", day, 10), at: now) == .closed)
        try ledger.changeAvailability(.reopen("LON", socket: "3", on: day), at: now)
        #expect(try ledger.status(of: Fixture.slot("LON", "3", day, 10), at: now) == .free)
        #expect(try ledger.status(of: Fixture.slot("LON", "3", day, 21), at: now) == .outsideHours)
        #expect(ledger.snapshot().overrides.isEmpty)
    }

    /// A change can open a socket outside its regular hours (08–20) on one date: 22:00, refused
    /// before the change, is booked after it; the next date keeps the regular hours.
    @Test func openExtraHours() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let late = Fixture.slot("LON", "3", day, 22)
        #expect(refusal { try ledger.reserve(Fixture.request(late, user: 1), at: now) }?.reason == .outsideOpeningHours)
        try ledger.changeAvailability(.setHours(.allDay, "LON", socket: "3", on: day), at: now)
        let booking = try ledger.reserve(Fixture.request(late, user: 1), at: now)
        #expect(booking.slot == late && booking.status == .active)
        #expect(try ledger.status(of: late, at: now) == .booked)
        #expect(try ledger.status(of: Fixture.slot("LON", "3", day.adding(days: 1), 22), at: now) == .outsideHours)
    }

    /// A change naming an unknown station or socket is refused.
    @Test func unknownTargets() throws {
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        #expect(
            refusal { try ledger.changeAvailability(.close("NOPE", socket: nil, on: day), at: now) }?.reason
                == .unknownStation)
        #expect(
            refusal { try ledger.changeAvailability(.close("LON", socket: "9", on: day), at: now) }?.reason
                == .unknownSocket)
        #expect(
            refusal { try scheduler.changeAvailability(.close("NOPE", socket: nil, on: day), at: now) }?.reason
                == .unknownStation)
        #expect(
            refusal { try scheduler.changeAvailability(.close("LON", socket: "9", on: day), at: now) }?.value == "9")
        #expect(ledger.events.isEmpty)
    }

    /// The scheduler displaces and refuses exactly like the ledger.
    @Test func schedulerDisplaceAndRefuse() throws {
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try scheduler.reserve(Fixture.request(Fixture.slot(day, 14), user: 1), at: now)
        let b = try scheduler.reserve(Fixture.request(Fixture.slot(day, 10), user: 2), at: now)
        let before = scheduler.snapshot()
        #expect(
            refusal {
                try scheduler.changeAvailability(.close("LON", socket: "1", on: day), onBookings: .refuse, at: now)
            }?
            .limit == 2)
        #expect(scheduler.snapshot() == before)
        let displaced = try scheduler.changeAvailability(
            .close("LON", socket: "1", on: day), onBookings: .displace, at: now)
        #expect(displaced.map(\.id) == [b.id, a.id])
        #expect(displaced.allSatisfy { $0.status == .displaced })
        #expect(scheduler.bookings(of: 1, at: now).upcoming.isEmpty)
        #expect(try scheduler.status(of: Fixture.slot(day, 10), at: now) == .closed)
        #expect(scheduler.events.suffix(2) == [.displaced(b.id, user: 2, at: now), .displaced(a.id, user: 1, at: now)])
    }
}
