import Foundation
import SlotScheduler
import Testing

@Suite("Events, replay and snapshots")
struct EventReplayTests {
    /// A script touching every kind of event; run it on a ledger or a scheduler.
    private static func script(
        reserve: (ReservationRequest, Instant) throws -> Booking,
        cancel: (BookingID, UserID, Instant) throws -> Void,
        change: (AvailabilityChange, Instant) throws -> Void
    ) throws {
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "r1", reminder: .seconds(900)), now)
        _ = try reserve(Fixture.request(Fixture.slot("IST", "1", day, 10), user: 2), now + .seconds(1))
        _ = try reserve(Fixture.request(Fixture.slot("LON", "2", day, 12), user: 3), now + .seconds(2))
        try cancel(a.id, 1, now + .seconds(3))
        _ = try reserve(Fixture.request(Fixture.slot(day, 10), user: 4), now + .seconds(4))  // rebook the freed slot
        try change(.close("LON", socket: "2", on: day), now + .seconds(5))  // displaces user 3
        try change(.setHours(HourSet(6..<9), "CKR", socket: nil, on: day.adding(days: 1)), now + .seconds(6))
        _ = try reserve(Fixture.request(Fixture.slot("CKR", "1", day.adding(days: 1), 7), user: 5), now + .seconds(7))
        try change(.setHours(HourSet(0..<10), "LHR", socket: "A", on: day), now + .seconds(8))
        try change(.reopen("LHR", socket: "A", on: day), now + .seconds(9))
    }

    private static func runOnLedger(_ ledger: inout Ledger) throws {
        try script(
            reserve: { try ledger.reserve($0, at: $1) }, cancel: { try ledger.cancel($0, by: $1, at: $2) },
            change: { try ledger.changeAvailability($0, at: $1) })
    }

    private static func runOnScheduler(_ scheduler: Scheduler) throws {
        try script(
            reserve: { try scheduler.reserve($0, at: $1) }, cancel: { try scheduler.cancel($0, by: $1, at: $2) },
            change: { try scheduler.changeAvailability($0, at: $1) })
    }

    /// Every state change emits one event, in order.
    @Test func eventsOfTheScript() throws {
        var ledger = try Fixture.ledger()
        try Self.runOnLedger(&ledger)
        let kinds = ledger.events.map { event -> String in
            switch event {
            case .reserved: "reserved"
            case .cancelled: "cancelled"
            case .availabilityChanged: "changed"
            case .displaced: "displaced"
            case .rescheduled: "rescheduled"
            case .held, .holdConfirmed, .holdReleased: "hold"
            case .checkedIn: "checkedIn"
            case .checkedOut: "checkedOut"
            case .catalogChanged: "catalogChanged"
            }
        }
        #expect(
            kinds == [
                "reserved", "reserved", "reserved", "cancelled", "reserved", "changed", "displaced", "changed",
                "reserved", "changed", "changed",
            ])
        #expect(ledger.eventCount == kinds.count)
        #expect(ledger.events(since: 9) == Array(ledger.events[9...]))
        #expect(ledger.events(since: 100).isEmpty)
    }

    /// Replaying a ledger's events onto an empty ledger rebuilds the identical snapshot and journal.
    @Test func ledgerReplay() throws {
        var ledger = try Fixture.ledger()
        try Self.runOnLedger(&ledger)
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
        #expect(replayed.events == ledger.events)
        #expect(
            replayed.bookings(of: 4, at: try Fixture.earlyNow()) == ledger.bookings(of: 4, at: try Fixture.earlyNow()))
    }

    /// A replayed ledger keeps enforcing the rules: request ids, taken slots and limits carry over.
    @Test func replayedLedgerKeepsRules() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1))
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let first = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "a"), at: now)
        var replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(try replayed.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "a"), at: now) == first)
        #expect(
            refusal { try replayed.reserve(Fixture.request(Fixture.slot(day, 10), user: 2), at: now) }?.reason
                == .slotTaken)
        #expect(
            refusal { try replayed.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now) }?.reason
                == .userLimitReached)
    }

    /// Replaying a scheduler's events onto an empty scheduler with the same shard count rebuilds the identical snapshot.
    @Test func schedulerReplay() throws {
        let scheduler = try Fixture.scheduler(shards: 4)
        try Self.runOnScheduler(scheduler)
        let replayed = try Scheduler(rules: scheduler.rules, shards: 4, replaying: scheduler.events)
        #expect(replayed.snapshot() == scheduler.snapshot())
        #expect(replayed.events == scheduler.events)
    }

    /// A one-shard scheduler and a ledger running the same commands have the same snapshot and events.
    @Test func ledgerAndOneShardSchedulerAgree() throws {
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler(shards: 1)
        try Self.runOnLedger(&ledger)
        try Self.runOnScheduler(scheduler)
        #expect(scheduler.snapshot() == ledger.snapshot())
        #expect(scheduler.events == ledger.events)
    }

    /// A snapshot round-trips through JSON, and a ledger rebuilt from it has the same snapshot.
    @Test func snapshotRoundTrip() throws {
        var ledger = try Fixture.ledger()
        try Self.runOnLedger(&ledger)
        let snapshot = ledger.snapshot()
        let data = try JSONEncoder().encode(snapshot)
        let decoded = try JSONDecoder().decode(Snapshot.self, from: data)
        #expect(decoded == snapshot)
        let restored = try Ledger(rules: ledger.rules, snapshot: decoded)
        #expect(restored.snapshot() == snapshot)
        #expect(restored.events.isEmpty)
    }

    /// A ledger restored from a snapshot keeps enforcing the rules on the restored state.
    @Test func restoredLedgerKeepsRules() throws {
        var ledger = try Fixture.ledger()
        try Self.runOnLedger(&ledger)
        var restored = try Ledger(rules: ledger.rules, snapshot: ledger.snapshot())
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        #expect(
            refusal { try restored.reserve(Fixture.request(Fixture.slot(day, 10), user: 9), at: now) }?.reason
                == .slotTaken)
        #expect(
            refusal { try restored.reserve(Fixture.request(Fixture.slot("LON", "2", day, 9), user: 9), at: now) }?
                .reason == .socketClosed)
        let next = try restored.reserve(Fixture.request(Fixture.slot(day, 11), user: 9), at: now)
        #expect(next.id.rawValue == UInt64(ledger.allBookings.count + 1))
    }

    /// The same commands in two fresh ledgers give byte-identical journals (JSON, sorted keys).
    @Test func journalIsByteIdentical() throws {
        var first = try Fixture.ledger()
        var second = try Fixture.ledger()
        try Self.runOnLedger(&first)
        try Self.runOnLedger(&second)
        let a = try journalBytes(first.events)
        let b = try journalBytes(second.events)
        #expect(a == b)
        #expect(!a.isEmpty)
        let decoded = try JSONDecoder().decode([Event].self, from: a)
        #expect(decoded == first.events)
    }

    /// Schedulers (sharded, thread-safe) also give byte-identical journals for the same commands.
    @Test func schedulerJournalIsByteIdentical() throws {
        let first = try Fixture.scheduler()
        let second = try Fixture.scheduler()
        try Self.runOnScheduler(first)
        try Self.runOnScheduler(second)
        #expect(try journalBytes(first.events) == (try journalBytes(second.events)))
    }

    /// A journal whose booking ids are out of sequence or whose cancel names the wrong user is refused with its index.
    @Test func badJournalIsRefused() throws {
        var ledger = try Fixture.ledger()
        try Self.runOnLedger(&ledger)
        var events = ledger.events
        events.removeFirst()
        do {
            _ = try Ledger(rules: ledger.rules, replaying: events)
            Issue.record("replay of a journal with a gap succeeded")
        } catch {
            #expect(error.index == 0)
        }
        let day = try Fixture.day()
        let booking = Booking(
            id: BookingID(1), slot: Fixture.slot(day, 10), user: 1, start: Instant.utc(day, hour: 9),
            createdAt: try Fixture.earlyNow())
        let wrongUser: [Event] = [.reserved(booking), .cancelled(BookingID(1), user: 2, at: try Fixture.earlyNow())]
        do {
            _ = try Ledger(rules: ledger.rules, replaying: wrongUser)
            Issue.record("replay of a cancel by the wrong user succeeded")
        } catch {
            #expect(error.index == 1)
        }
    }

    /// A `reserved` event makes an active booking, not checked in, starting at its slot, with a
    /// reminder a reservation accepts. Each of these replayed before: the cancelled one as active,
    /// holding its slot; the check-in lost; the start of 1970 out of its user's upcoming count; the
    /// reminder clamped.
    @Test(arguments: 0..<4)
    func reservedEventsThatNoReservationMakesAreRefused(kind: Int) throws {
        let ledger = try Fixture.ledger()
        let day = try Fixture.day()
        var booking = Booking(
            id: BookingID(1), slot: Fixture.slot(day, 10), user: 1,
            start: try #require(ledger.rules.catalog.start(of: ledger.rules.catalog.resolve(Fixture.slot(day, 10)))),
            createdAt: try Fixture.earlyNow())
        _ = try Ledger(rules: ledger.rules, replaying: [.reserved(booking)])  // as made: replays
        switch kind {
        case 0: booking.status = .cancelled
        case 1: booking.checkedInAt = try Fixture.earlyNow()
        case 2: booking.start = Instant(secondsSinceEpoch: 0)
        default: booking.reminderOffsetSeconds = .max
        }
        #expect(throws: ReplayError.self) { _ = try Ledger(rules: ledger.rules, replaying: [.reserved(booking)]) }
    }

    /// A `held` event is checked as a `reserved` one: a start at its slot, a reminder a hold
    /// accepts. Both replayed before, the hold's start only range-checked and its reminder clamped.
    @Test(arguments: 0..<3)
    func heldEventsThatNoHoldMakesAreRefused(kind: Int) throws {
        let ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        var hold = Hold(
            slot: Fixture.slot(day, 10), user: 1,
            start: try #require(ledger.rules.catalog.start(of: ledger.rules.catalog.resolve(Fixture.slot(day, 10)))),
            createdAt: now, expiresAt: now + .seconds(600))
        _ = try Ledger(rules: ledger.rules, replaying: [.held(hold)])  // as made: replays
        switch kind {
        case 0: hold.start = Instant(secondsSinceEpoch: 0)
        case 1: hold.reminderOffsetSeconds = .max
        default: hold.expiresAt = hold.createdAt
        }
        #expect(throws: ReplayError.self) { _ = try Ledger(rules: ledger.rules, replaying: [.held(hold)]) }
    }
}
