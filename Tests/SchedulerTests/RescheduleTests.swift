import Foundation
import SlotScheduler
import Testing

/// Moving a booking to another slot of its station in one step.
@Suite("RescheduleTests")
struct RescheduleTests {
    static func move(_ booking: Booking, to slot: Slot, by user: UserID? = nil, id: RequestID? = nil)
        -> RescheduleRequest
    {
        RescheduleRequest(booking: booking.id, user: user ?? booking.user, to: slot, requestID: id)
    }

    /// The booking moves with its id, reminder and creation time; the old slot is free, the new
    /// one taken, and one event is journalled.
    @Test func movesAtomicallyAndKeepsIdentity() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let booking = try ledger.reserve(
            Fixture.request(Fixture.slot(day, 10), user: 1, id: "r", reminder: .seconds(900)), at: now)
        let events = ledger.eventCount
        let target = Fixture.slot("LON", "2", day, 14)
        let moved = try ledger.reschedule(Self.move(booking, to: target), at: now + .seconds(60))
        #expect(!moved.isReplay)
        #expect(moved.booking.id == booking.id)
        #expect(moved.booking.slot == target)
        #expect(moved.booking.reminderOffsetSeconds == 900)
        #expect(moved.booking.createdAt == booking.createdAt)
        #expect(moved.booking.requestID == "r")
        #expect(moved.booking.start == Instant.utc(day, hour: 13))
        #expect(try ledger.status(of: booking.slot, at: now) == .free)
        #expect(try ledger.status(of: target, at: now) == .booked)
        #expect(ledger.eventCount == events + 1)
        guard case .rescheduled(let move, let at) = ledger.events.last else {
            Issue.record("expected a rescheduled event, got \(ledger.events)")
            return
        }
        #expect(
            move
                == BookingMove(booking: booking.id, user: 1, from: booking.slot, to: target, start: moved.booking.start)
        )
        #expect(at == now + .seconds(60))
        #expect(ledger.bookings(of: 1, at: now).upcoming.map(\.slot) == [target])
        #expect(
            ledger.remindersDue(in: now..<(now + .seconds(86_400 * 30))).map(\.fireAt)
                == [moved.booking.reminderAt].compactMap { $0 })
    }

    /// A user at the limit can still move a booking: it counts once.
    @Test func doesNotCountTwiceAgainstTheLimit() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let moved = try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 11)), at: now)
        #expect(moved.booking.slot.hour == 11)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 12), user: 1), at: now) }?.reason
                == .userLimitReached)
    }

    /// Refusals, in order, each changing nothing: unknown booking, owner, cutoff, another
    /// station, past, closed, taken.
    @Test func refusalsChangeNothing() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 5, cancellationCutoff: .seconds(7_200)))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let other = try ledger.reserve(Fixture.request(Fixture.slot(day, 12), user: 2), at: now)
        let before = ledger.snapshot()
        let count = ledger.eventCount
        let cases: [(RescheduleRequest, Instant, Rejection.Reason)] = [
            (RescheduleRequest(booking: BookingID(999), user: 1, to: Fixture.slot(day, 11)), now, .unknownBooking),
            (Self.move(booking, to: Fixture.slot(day, 11), by: 2), now, .notOwner),
            (Self.move(booking, to: Fixture.slot(day, 11)), Instant.utc(day, hour: 7), .rescheduleCutoffPassed),
            (Self.move(booking, to: Fixture.slot("IST", "1", day, 11)), now, .rescheduleToOtherStation),
            (Self.move(booking, to: Fixture.slot(try Fixture.date("2018-05-01"), 11)), now, .slotInPast),
            (Self.move(booking, to: Fixture.slot("LON", "3", day, 22)), now, .outsideOpeningHours),
            (Self.move(booking, to: other.slot), now, .slotTaken),
            (Self.move(booking, to: Fixture.slot("LON", "9", day, 11)), now, .unknownSocket),
        ]
        for (request, at, reason) in cases {
            #expect(refusal { try ledger.reschedule(request, at: at) }?.reason == reason, "\(request)")
            #expect(ledger.snapshot() == before)
            #expect(ledger.eventCount == count)
            #expect(try ledger.status(of: booking.slot, at: now) == .booked)
        }
        let cutoff = try #require(
            refusal {
                try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 11)), at: Instant.utc(day, hour: 7))
            })
        #expect(cutoff.instant == Instant.utc(day, hour: 7))
        #expect(cutoff.message(in: .english).contains("can no longer be moved"))
        #expect(cutoff.message(in: .turkish).contains("taşınamaz"))
        try ledger.cancel(booking.id, by: 1, at: now)
        #expect(
            refusal { try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 11)), at: now) }?.reason
                == .alreadyCancelled)
    }

    /// The change cutoff is its own policy field when set; otherwise the cancellation cutoff.
    @Test func changeCutoffPolicy() throws {
        let day = try Fixture.day()
        let at = Instant.utc(day, hour: 8)  // one hour before the 10:00 BST (09:00 UTC) slot
        var strict = try Fixture.ledger(Policy(maxUpcomingBookings: 5, rescheduleCutoff: .seconds(7_200)))
        let b1 = try strict.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: try Fixture.earlyNow())
        #expect(
            refusal { try strict.reschedule(Self.move(b1, to: Fixture.slot(day, 11)), at: at) }?.reason
                == .rescheduleCutoffPassed)
        try strict.cancel(b1.id, by: 1, at: at)  // the cancellation cutoff (0) still allows it
        var lenient = try Fixture.ledger(
            Policy(maxUpcomingBookings: 5, cancellationCutoff: .seconds(7_200), rescheduleCutoff: .zero))
        let b2 = try lenient.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: try Fixture.earlyNow())
        #expect(try lenient.reschedule(Self.move(b2, to: Fixture.slot(day, 11)), at: at).booking.slot.hour == 11)
        #expect(throws: InvalidValue.self) { try Policy(rescheduleCutoff: .seconds(-1)).validated() }
    }

    /// A repeated request id returns the same booking and changes nothing, even after the
    /// booking moved on; the id for another move is refused. Reservation ids are a separate
    /// namespace.
    @Test func requestIDs() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "m"), at: now)
        let first = try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 11), id: "m"), at: now)
        let count = ledger.eventCount
        let again = try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 11), id: "m"), at: now)
        #expect(again.isReplay && again.booking == first.booking)
        #expect(ledger.eventCount == count)
        _ = try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 12), id: "n"), at: now)
        let late = try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 11), id: "m"), at: now)
        #expect(late.isReplay && late.booking.slot.hour == 12)
        #expect(
            refusal { try ledger.reschedule(Self.move(booking, to: Fixture.slot(day, 13), id: "m"), at: now) }?.reason
                == .conflictingRequestID)
        // The journal remembers the ids: a replayed ledger answers the repeat the same way.
        var replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(try replayed.reschedule(Self.move(booking, to: Fixture.slot(day, 11), id: "m"), at: now).isReplay)
        // So does the snapshot, in a ledger and in a scheduler.
        let snapshot = ledger.snapshot()
        #expect(snapshot.rescheduleRequests.map(\.requestID) == ["m", "n"])
        var restored = try Ledger(rules: ledger.rules, snapshot: snapshot)
        #expect(try restored.reschedule(Self.move(booking, to: Fixture.slot(day, 11), id: "m"), at: now).isReplay)
        let scheduler = try Scheduler(rules: ledger.rules, shards: 3, snapshot: snapshot)
        #expect(scheduler.snapshot() == snapshot)
        #expect(try scheduler.reschedule(Self.move(booking, to: Fixture.slot(day, 11), id: "m"), at: now).isReplay)
        let decoded = try JSONDecoder().decode(Snapshot.self, from: try JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)
    }

    /// A move to the booking's own slot is accepted and keeps the slot taken.
    @Test func moveToOwnSlot() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(try Fixture.day(), 10), user: 1), at: now)
        let same = try ledger.reschedule(Self.move(booking, to: booking.slot), at: now)
        #expect(same.booking.slot == booking.slot)
        #expect(try ledger.status(of: booking.slot, at: now) == .booked)
        #expect(refusal { try ledger.reserve(Fixture.request(booking.slot, user: 2), at: now) }?.reason == .slotTaken)
    }

    /// Ledger and a sharded scheduler agree, and both journals and snapshots replay: the
    /// journal's first event still shows where the booking was made.
    @Test func schedulerAgreesAndReplays() throws {
        let rules = try Fixture.ledger().rules
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 3)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        for (user, hour) in [(1, 10), (2, 11), (3, 12)] {
            let request = Fixture.request(Fixture.slot(day, hour), user: UserID(UInt64(user)))
            _ = try ledger.reserve(request, at: now)
            _ = try scheduler.reserve(request, at: now)
        }
        for (i, target) in [Fixture.slot("LON", "2", day, 10), Fixture.slot(day, 10), Fixture.slot(day, 12)]
            .enumerated()
        {
            let lb = ledger.allBookings[i]
            let sb = scheduler.allBookings[i]
            let a = refusal { try ledger.reschedule(Self.move(lb, to: target), at: now) }
            let b = refusal { try scheduler.reschedule(Self.move(sb, to: target), at: now) }
            #expect(a?.reason == b?.reason)
        }
        #expect(ledger.allBookings.map(\.slot) == scheduler.allBookings.map(\.slot))
        guard case .reserved(let made) = ledger.events.first else {
            Issue.record("expected a reserved event first")
            return
        }
        #expect(made.slot == Fixture.slot(day, 10))
        #expect(try Ledger(rules: rules, replaying: ledger.events).snapshot() == ledger.snapshot())
        #expect(try Ledger(rules: rules, snapshot: ledger.snapshot()).snapshot() == ledger.snapshot())
        #expect(try Scheduler(rules: rules, shards: 2, replaying: scheduler.events).snapshot() == scheduler.snapshot())
        #expect(try Scheduler(rules: rules, shards: 5, replaying: ledger.events).snapshot() == ledger.snapshot())
    }
}
