import SlotScheduler
import Testing

@Suite("Idempotency: request ids")
struct IdempotencyTests {
    /// Repeating a request with the same id returns the same booking and makes no new one.
    @Test func sameRequestReturnsSameBooking() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let request = Fixture.request(Fixture.slot(try Fixture.day(), 10), user: 1, id: "abc")
        let first = try ledger.reserve(request, at: now)
        let events = ledger.eventCount
        let again = try ledger.reserve(request, at: now + .seconds(60))
        #expect(again == first)
        #expect(again.requestID == "abc")
        #expect(ledger.allBookings == [first])
        #expect(ledger.eventCount == events)
    }

    /// A repeat is answered from the remembered request even once the slot is in the past.
    @Test func repeatAfterSlotHasPassed() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let request = Fixture.request(Fixture.slot(day, 10), user: 1, id: "abc")
        let first = try ledger.reserve(request, at: try Fixture.earlyNow())
        #expect(try ledger.reserve(request, at: Instant.utc(day, hour: 20)) == first)
    }

    /// The same id with a different slot is refused with `conflictingRequestID`, naming the id; nothing changes.
    @Test func sameIDDifferentSlotIsRefused() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "abc"), at: now)
        let before = ledger.snapshot()
        let other = Fixture.slot(day, 11)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(other, user: 1, id: "abc"), at: now) })
        #expect(r.reason == .conflictingRequestID)
        #expect(r.requestID == "abc")
        #expect(r.value == "abc")
        #expect(r.slot == other)
        #expect(r.user == 1)
        #expect(ledger.snapshot() == before)
    }

    /// The same id with a different reminder is a different request, and is refused.
    @Test func sameIDDifferentReminderIsRefused() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        _ = try ledger.reserve(Fixture.request(slot, user: 1, id: "abc", reminder: .seconds(600)), at: now)
        let r = refusal {
            try ledger.reserve(Fixture.request(slot, user: 1, id: "abc", reminder: .seconds(900)), at: now)
        }
        #expect(r?.reason == .conflictingRequestID)
        let r2 = refusal { try ledger.reserve(Fixture.request(slot, user: 1, id: "abc"), at: now) }
        #expect(r2?.reason == .conflictingRequestID)
    }

    /// Request ids are per user: two users may use the same id for different slots.
    @Test func differentUsersMayReuseAnID() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "x"), at: now)
        let b = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 2, id: "x"), at: now)
        #expect(a.id != b.id)
        #expect(ledger.allBookings.count == 2)
    }

    /// A refused request does not claim its id: after fixing the request the same id succeeds.
    @Test func refusedRequestDoesNotClaimID() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 2, id: "k"), at: now) }?.reason
                == .slotTaken)
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 2, id: "k"), at: now)
        #expect(booking.requestID == "k")
    }

    /// The scheduler honours request ids the same way, and a repeat of a cancelled booking returns it cancelled.
    @Test func schedulerIdempotency() throws {
        let scheduler = try Fixture.scheduler()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let request = Fixture.request(Fixture.slot(day, 10), user: 1, id: "abc")
        let first = try scheduler.reserve(request, at: now)
        #expect(try scheduler.reserve(request, at: now) == first)
        let conflicting = Fixture.request(Fixture.slot("IST", "1", day, 10), user: 1, id: "abc")
        #expect(refusal { try scheduler.reserve(conflicting, at: now) }?.reason == .conflictingRequestID)
        _ = try scheduler.reserve(Fixture.request(Fixture.slot(day, 11), user: 2, id: "abc"), at: now)
        try scheduler.cancel(first.id, by: 1, at: now)
        let repeated = try scheduler.reserve(request, at: now)
        #expect(repeated.id == first.id)
        #expect(repeated.status == .cancelled)
        #expect(scheduler.allBookings.count == 2)
    }
}
