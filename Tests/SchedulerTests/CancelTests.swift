import SlotScheduler
import Testing

@Suite("Cancel: owner only, before the cutoff, frees the slot")
struct CancelTests {
    /// The owner cancels: the booking becomes cancelled, the slot is free and another user can book it.
    @Test func ownerCancelFreesSlot() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let booking = try ledger.reserve(Fixture.request(slot, user: 1), at: now)
        let cancelled = try ledger.cancel(booking.id, by: 1, at: now)
        #expect(cancelled.id == booking.id)
        #expect(cancelled.status == .cancelled)
        #expect(ledger.booking(booking.id)?.status == .cancelled)
        #expect(try ledger.status(of: slot, at: now) == .free)
        #expect(ledger.bookings(of: 1, at: now).upcoming.isEmpty)
        let rebooked = try ledger.reserve(Fixture.request(slot, user: 2), at: now)
        #expect(rebooked.id != booking.id)
        #expect(rebooked.slot == slot)
        #expect(ledger.events.last == .reserved(rebooked))
    }

    /// Cancelling gives the user's place back under the limit.
    @Test func cancelFreesLimit() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now) }?.reason
                == .userLimitReached)
        try ledger.cancel(booking.id, by: 1, at: now)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
    }

    /// Only the owner can cancel: anyone else gets `notOwner` and nothing changes.
    @Test func notOwner() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let booking = try ledger.reserve(Fixture.request(slot, user: 1), at: now)
        let before = ledger.snapshot()
        let events = ledger.eventCount
        let r = try #require(refusal { try ledger.cancel(booking.id, by: 2, at: now) })
        #expect(r.reason == .notOwner)
        #expect(r.booking == booking.id)
        #expect(r.user == 2)
        #expect(r.slot == slot)
        #expect(ledger.snapshot() == before)
        #expect(ledger.eventCount == events)
    }

    /// A second cancel is answered with `alreadyCancelled`.
    @Test func secondCancel() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(try Fixture.day(), 10), user: 1), at: now)
        try ledger.cancel(booking.id, by: 1, at: now)
        let r = try #require(refusal { try ledger.cancel(booking.id, by: 1, at: now) })
        #expect(r.reason == .alreadyCancelled)
        #expect(r.booking == booking.id)
    }

    /// An id the scheduler never gave out is `unknownBooking`.
    @Test func unknownBooking() throws {
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let r = try #require(refusal { try ledger.cancel(BookingID(999), by: 1, at: try Fixture.earlyNow()) })
        #expect(r.reason == .unknownBooking)
        #expect(r.booking == BookingID(999))
        for id in [BookingID(0), BookingID(999), BookingID(UInt64.max)] {
            #expect(
                refusal { try scheduler.cancel(id, by: 1, at: Instant(secondsSinceEpoch: 0)) }?.reason
                    == .unknownBooking)
        }
    }

    /// With a one-hour cutoff, cancelling is allowed until just over an hour before the start, then refused
    /// with `cancellationCutoffPassed` giving the deadline.
    @Test func cutoff() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, cancellationCutoff: .seconds(3_600)))
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let b = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        let deadline = a.start - .seconds(3_600)
        let r = try #require(refusal { try ledger.cancel(a.id, by: 1, at: deadline) })
        #expect(r.reason == .cancellationCutoffPassed)
        #expect(r.instant == deadline)
        #expect(r.booking == a.id)
        #expect(ledger.booking(a.id)?.status == .active)
        try ledger.cancel(b.id, by: 1, at: b.start - .seconds(3_601))
    }

    /// Without a cutoff, a booking that has started can no longer be cancelled.
    @Test func cannotCancelStartedBooking() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: try Fixture.earlyNow())
        #expect(
            refusal { try ledger.cancel(booking.id, by: 1, at: booking.start) }?.reason == .cancellationCutoffPassed)
        try ledger.cancel(booking.id, by: 1, at: booking.start - .seconds(1))
    }

    /// Cancelling removes the booking's reminder.
    @Test func cancelRemovesReminder() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let booking = try ledger.reserve(
            Fixture.request(Fixture.slot(try Fixture.day(), 10), user: 1, reminder: .seconds(1_800)), at: now)
        let window = now..<(booking.start + .seconds(1))
        #expect(ledger.remindersDue(in: window).map(\.booking) == [booking.id])
        try ledger.cancel(booking.id, by: 1, at: now)
        #expect(ledger.remindersDue(in: window).isEmpty)
    }

    /// The scheduler cancels the same way: owner only, once, and the slot can be booked again.
    @Test func schedulerCancel() throws {
        let scheduler = try Fixture.scheduler()
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let booking = try scheduler.reserve(Fixture.request(slot, user: 1), at: now)
        #expect(refusal { try scheduler.cancel(booking.id, by: 2, at: now) }?.reason == .notOwner)
        #expect(try scheduler.cancel(booking.id, by: 1, at: now).status == .cancelled)
        #expect(refusal { try scheduler.cancel(booking.id, by: 1, at: now) }?.reason == .alreadyCancelled)
        #expect(try scheduler.status(of: slot, at: now) == .free)
        _ = try scheduler.reserve(Fixture.request(slot, user: 2), at: now)
        #expect(scheduler.bookings(of: 2, at: now).upcoming.map(\.slot) == [slot])
    }
}
