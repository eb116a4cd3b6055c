import Foundation
import SlotScheduler
import Testing

@Suite("Holds: hold, then confirm before expiry")
struct HoldTests {
    static let policy = Policy(maxUpcomingBookings: 3, hold: .seconds(600), maxHoldsPerUser: 2)

    /// A hold keeps the slot from others (`slotHeld`, day view `held`) and its holder confirms it
    /// into a booking; the journal replays to the same state.
    @Test func holdThenConfirm() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let hold = try ledger.hold(slot, for: 1, reminder: .seconds(3_600), at: now)
        #expect(hold.expiresAt == Instant(secondsSinceEpoch: now.secondsSinceEpoch + 600))
        #expect(hold.reminderOffsetSeconds == 3_600)
        #expect(refusal { try ledger.reserve(Fixture.request(slot, user: 2), at: now) }?.reason == .slotHeld)
        #expect(refusal { try ledger.hold(slot, for: 2, at: now) }?.reason == .slotHeld)
        #expect(refusal { try ledger.hold(slot, for: 1, at: now) }?.reason == .slotHeld)
        #expect(try ledger.status(of: slot, at: now) == .held)
        #expect(try ledger.dayView(of: "LON", on: slot.date, at: now).status(socket: "1", hour: 10) == .held)
        #expect(ledger.holds(at: now) == [hold])
        #expect(refusal { try ledger.confirm(slot, by: 2, at: now) }?.reason == .unknownHold)
        let later = Instant(secondsSinceEpoch: now.secondsSinceEpoch + 599)
        let booking = try ledger.confirm(slot, by: 1, at: later)
        #expect(booking.user == 1 && booking.slot == slot && booking.createdAt == later)
        #expect(booking.reminderOffsetSeconds == 3_600 && booking.status == .active)
        #expect(try ledger.status(of: slot, at: later) == .booked)
        #expect(ledger.holds(at: later).isEmpty)
        #expect(try ledger.confirm(slot, by: 1, at: later) == booking)
        #expect(ledger.bookings(of: 1, at: later).upcoming == [booking])
        #expect(ledger.events == [.held(hold), .holdConfirmed(booking)])
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
        #expect(replayed.events == ledger.events)
    }

    /// A confirm at or after the expiry is refused with `holdExpired`; the slot is free again
    /// for everyone, without any call having freed it.
    @Test func confirmAtExpiryRefused() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let hold = try ledger.hold(slot, for: 1, at: now)
        let expiry = hold.expiresAt
        let refused = refusal { try ledger.confirm(slot, by: 1, at: expiry) }
        #expect(refused?.reason == .holdExpired)
        #expect(refused?.instant == expiry)
        #expect(refused?.message(in: .english).contains("expired") == true)
        #expect(try ledger.status(of: slot, at: expiry) == .free)
        #expect(ledger.holds(at: expiry).isEmpty)
        #expect(refusal { try ledger.releaseHold(slot, by: 1, at: expiry) }?.reason == .holdExpired)
        let booking = try ledger.reserve(Fixture.request(slot, user: 2), at: expiry)
        #expect(booking.user == 2)
        // Even a call whose clock is earlier no longer finds the hold: its slot is booked.
        #expect(refusal { try ledger.confirm(slot, by: 1, at: now) }?.reason == .holdExpired)
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
    }

    /// Releasing frees the slot at once; a released hold cannot be confirmed.
    @Test func releaseFreesAtOnce() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let hold = try ledger.hold(slot, for: 1, at: now)
        #expect(refusal { try ledger.releaseHold(slot, by: 2, at: now) }?.reason == .unknownHold)
        #expect(try ledger.releaseHold(slot, by: 1, at: now) == hold)
        #expect(try ledger.status(of: slot, at: now) == .free)
        #expect(refusal { try ledger.confirm(slot, by: 1, at: now) }?.reason == .unknownHold)
        _ = try ledger.reserve(Fixture.request(slot, user: 2), at: now)
        #expect(ledger.events.count == 3)
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
    }

    /// A live hold counts against the upcoming limit; `maxHoldsPerUser` bounds live holds; an
    /// expired hold counts for neither.
    @Test func holdsCountAgainstLimits() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 8), user: 1), at: now)
        try ledger.hold(Fixture.slot(day, 9), for: 1, at: now)
        try ledger.hold(Fixture.slot(day, 10), for: 1, at: now)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now) }?.reason
                == .userLimitReached)
        var wide = try Fixture.ledger(Policy(maxUpcomingBookings: 10, hold: .seconds(600), maxHoldsPerUser: 2))
        try wide.hold(Fixture.slot(day, 9), for: 1, at: now)
        try wide.hold(Fixture.slot(day, 10), for: 1, at: now)
        let third = refusal { try wide.hold(Fixture.slot(day, 11), for: 1, at: now) }
        #expect(third?.reason == .holdLimitReached)
        #expect(third?.limit == 2)
        let expired = Instant(secondsSinceEpoch: now.secondsSinceEpoch + 600)
        try wide.hold(Fixture.slot(day, 11), for: 1, at: expired)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: expired)
    }

    /// A confirmed hold's booking replaces the hold under the limit: confirming at the limit works.
    @Test func confirmAtLimit() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1, hold: .seconds(600), maxHoldsPerUser: 1))
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        try ledger.hold(slot, for: 1, at: now)
        #expect(try ledger.confirm(slot, by: 1, at: now).user == 1)
        #expect(ledger.activeBookingCount == 1)
    }

    /// Reschedules and any-socket requests see a live hold as held and an expired one as free.
    @Test func rescheduleAndAnySocketRespectHolds() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, hold: .seconds(600), maxHoldsPerUser: 2))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let held = Fixture.slot(day, 10)
        try ledger.hold(held, for: 1, at: now)
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 9), user: 2), at: now)
        let move = RescheduleRequest(booking: booking.id, user: 2, to: held)
        #expect(refusal { try ledger.reschedule(move, at: now) }?.reason == .slotHeld)
        // Socket 1 of LON is held at 10:00, so a type 2 request gets nothing (socket 1 is the only type 2).
        let any = AnySocketRequest(station: "LON", connector: .type2, date: day, hour: 10, user: 3)
        #expect(refusal { try ledger.reserve(any, at: now) }?.reason == .noMatchingSocketFree)
        let expired = Instant(secondsSinceEpoch: now.secondsSinceEpoch + 600)
        #expect(try ledger.reserve(any, at: expired).slot == held)
        try ledger.hold(Fixture.slot(day, 11), for: 1, at: expired)
        let moveLater = RescheduleRequest(booking: booking.id, user: 2, to: Fixture.slot(day, 11))
        #expect(refusal { try ledger.reschedule(moveLater, at: expired) }?.reason == .slotHeld)
        let later = Instant(secondsSinceEpoch: expired.secondsSinceEpoch + 600)
        #expect(try ledger.reschedule(moveLater, at: later).booking.slot == Fixture.slot(day, 11))
        #expect(refusal { try ledger.confirm(Fixture.slot(day, 11), by: 1, at: expired) }?.reason == .holdExpired)
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
    }

    /// Found by I17: a hold admitted at a later `now` (when the first had expired) counts when the
    /// first is confirmed at an earlier `now`, so the confirm checks the limit again.
    @Test func confirmRechecksLimitWhenClocksDiffer() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1, hold: .seconds(900), maxHoldsPerUser: 1))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        try ledger.hold(Fixture.slot(day, 8), for: 1, at: now)
        try ledger.hold(Fixture.slot(day, 9), for: 1, at: now + .seconds(900))
        let earlier = now + .seconds(450)
        #expect(refusal { try ledger.confirm(Fixture.slot(day, 8), by: 1, at: earlier) }?.reason == .userLimitReached)
        #expect(try ledger.confirm(Fixture.slot(day, 9), by: 1, at: now + .seconds(1_000)).user == 1)
    }

    /// Users whose clocks are far apart, as under real threads that run one after another: a hold
    /// made at `now` 3 900 still keeps its slot from another user at `now` 50 (it lives before its
    /// expiry, as in the `ReferenceModel`); a hold made at 100 whose slot another user booked at
    /// 300, once it had expired, is no longer listed even at 150, so no slot is both held and
    /// booked by different users at any `now`.
    @Test func clocksFarApartNeverHoldAndBookOneSlot() throws {
        let scheduler = try Fixture.scheduler(
            Policy(maxUpcomingBookings: 3, hold: .seconds(120), maxHoldsPerUser: 2), shards: 2)
        let start = try Fixture.earlyNow()
        let day = try Fixture.day()
        let (ahead, behind) = (Fixture.slot(day, 8), Fixture.slot(day, 9))
        let late = try scheduler.hold(ahead, for: 1, at: start + .seconds(3_900))
        let request = ReservationRequest(slot: ahead, user: 2)
        #expect(refusal { try scheduler.reserve(request, at: start + .seconds(50)) }?.reason == .slotHeld)
        #expect(refusal { try scheduler.hold(ahead, for: 2, at: start + .seconds(50)) }?.reason == .slotHeld)
        #expect(scheduler.holds(at: start + .seconds(50)) == [late])
        try scheduler.hold(behind, for: 1, at: start + .seconds(100))
        let booking = try scheduler.reserve(ReservationRequest(slot: behind, user: 2), at: start + .seconds(300))
        #expect(scheduler.holds(at: start + .seconds(150)) == [late])
        #expect(refusal { try scheduler.confirm(behind, by: 1, at: start + .seconds(150)) }?.reason == .holdExpired)
        #expect(scheduler.allBookings == [booking])
        let replayed = try Scheduler(rules: scheduler.rules, shards: 3, replaying: scheduler.events)
        #expect(replayed.snapshot() == scheduler.snapshot())
    }

    /// The policy bounds are typed errors naming the field.
    @Test func policyBounds() throws {
        #expect(invalidValue { try Fixture.ledger(Policy(hold: .zero)) }?.field == "policy.holdSeconds")
        #expect(invalidValue { try Fixture.ledger(Policy(hold: .seconds(86_401))) }?.field == "policy.holdSeconds")
        #expect(
            invalidValue { try Fixture.ledger(Policy(hold: .seconds(600), maxHoldsPerUser: -1)) }?.field
                == "policy.maxHoldsPerUser")
        #expect(
            invalidValue { try Fixture.ledger(Policy(hold: .seconds(600), maxHoldsPerUser: 1_001)) }?.field
                == "policy.maxHoldsPerUser")
        let old =
            #"{"maxUpcomingBookings":3,"horizon":{"unlimited":{}},"minimumNoticeSeconds":0,"#
            + #""cancellationCutoffSeconds":0,"userLimits":[]}"#
        let decoded = try JSONDecoder().decode(Policy.self, from: Data(old.utf8))
        #expect(decoded == Policy(maxUpcomingBookings: 3))
    }

    /// Snapshots carry current holds (version 2 on the wire) and restore them; a Scheduler with
    /// shards agrees with the Ledger.
    @Test func snapshotAndScheduler() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let scheduler = try Fixture.scheduler(Self.policy, shards: 3)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        for user in [UserID(1), 2] {
            try ledger.hold(Fixture.slot(day, Int(user.rawValue)), for: user, at: now)
            try scheduler.hold(Fixture.slot(day, Int(user.rawValue)), for: user, at: now)
        }
        _ = try ledger.confirm(Fixture.slot(day, 1), by: 1, at: now)
        _ = try scheduler.confirm(Fixture.slot(day, 1), by: 1, at: now)
        #expect(
            refusal { try scheduler.reserve(Fixture.request(Fixture.slot(day, 2), user: 3), at: now) }?.reason
                == .slotHeld)
        let snapshot = ledger.snapshot()
        #expect(snapshot.holds.count == 1)
        #expect(scheduler.snapshot() == snapshot)
        #expect(scheduler.holds(at: now) == ledger.holds(at: now))
        let data = try JSONEncoder().encode(snapshot)
        #expect(String(decoding: data, as: UTF8.self).contains(#""version":2"#))
        let decoded = try JSONDecoder().decode(Snapshot.self, from: data)
        #expect(decoded == snapshot)
        let restored = try Ledger(rules: ledger.rules, snapshot: decoded)
        #expect(restored.snapshot() == snapshot)
        let fromScheduler = try Scheduler(rules: ledger.rules, shards: 2, replaying: scheduler.events)
        #expect(fromScheduler.snapshot() == snapshot)
        #expect(
            refusal { try fromScheduler.reserve(Fixture.request(Fixture.slot(day, 2), user: 3), at: now) }?.reason
                == .slotHeld)
    }

    /// Hold events are written with version 2 and read back; version 1 hold events are refused.
    @Test func wireVersions() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(try Fixture.day(), 10)
        try ledger.hold(slot, for: 1, at: now)
        try ledger.releaseHold(slot, by: 1, at: now)
        let data = try JSONEncoder().encode(ledger.events)
        #expect(try JSONDecoder().decode([Event].self, from: data) == ledger.events)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""version":2"#) && !text.contains(#""version":1"#))
        let downgraded = Data(text.replacingOccurrences(of: #""version":2"#, with: #""version":1"#).utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Event].self, from: downgraded) }
    }

    /// Every new reason has a category and a message in both languages.
    @Test func messagesAndCategories() {
        let expected: [Rejection.Reason: Rejection.Reason.Category] = [
            .slotHeld: .conflict, .holdExpired: .conflict, .holdLimitReached: .conflict, .unknownHold: .notFound,
        ]
        for (reason, category) in expected {
            #expect(reason.category == category)
            let english = Rejection(reason).message(in: .english)
            let turkish = Rejection(reason).message(in: .turkish)
            #expect(!english.isEmpty && !turkish.isEmpty && english != turkish)
        }
        #expect(SlotStatus.held.reason == .slotHeld)
    }
}
