import Foundation
import Testing

@testable import SlotScheduler

/// Retention with holds: a release forgets the holds of the released days (the hold in a
/// released cell, its user's entry, its user-slot key) in a ledger and a scheduler alike, and
/// keeps the holds of later days.
@Suite("Retention: holds on released days")
struct RetentionHoldTests {
    static func rules() throws -> Rules {
        try Rules(
            catalog: try Catalog([Fixture.london, Fixture.istanbul]),
            policy: Policy(maxUpcomingBookings: 2, horizon: .rollingDays(30), hold: .seconds(600), maxHoldsPerUser: 2))
    }

    static func day(_ d: Int) throws -> LocalDate { try LocalDate(parsing: "2018-06-01").adding(days: d) }
    static func noon(_ d: Int) throws -> Instant { Instant.utc(try day(d), hour: 12) }

    /// The same commands on a ledger and on schedulers of one and three shards.
    struct Books {
        var ledger: Ledger
        let schedulers: [Scheduler]

        init(_ rules: Rules) {
            ledger = Ledger(rules: rules)
            schedulers = [Scheduler(rules: rules, shards: 1), Scheduler(rules: rules, shards: 3)]
        }

        mutating func hold(_ slot: Slot, for user: UserID, at now: Instant) throws -> Hold {
            let hold = try ledger.hold(slot, for: user, at: now)
            for scheduler in schedulers { #expect(try scheduler.hold(slot, for: user, at: now) == hold) }
            return hold
        }

        mutating func confirm(_ slot: Slot, by user: UserID, at now: Instant) throws {
            let booking = try ledger.confirm(slot, by: user, at: now)
            for scheduler in schedulers {
                Self.expect(try scheduler.confirm(slot, by: user, at: now), in: scheduler, booking)
            }
        }

        mutating func reserve(_ slot: Slot, for user: UserID, at now: Instant) throws {
            let booking = try ledger.reserve(Fixture.request(slot, user: user), at: now)
            for scheduler in schedulers {
                Self.expect(try scheduler.reserve(Fixture.request(slot, user: user), at: now), in: scheduler, booking)
            }
        }

        /// The ledger's booking, with the same id in a one-shard scheduler (ids carry the shard).
        static func expect(_ booking: Booking, in scheduler: Scheduler, _ expected: Booking) {
            #expect(booking.slot == expected.slot && booking.user == expected.user)
            #expect(scheduler.shardCount > 1 || booking == expected)
        }

        mutating func release(before cutoff: LocalDate, at now: Instant) throws {
            try ledger.releaseDays(before: cutoff, at: now)
            for scheduler in schedulers { try scheduler.releaseDays(before: cutoff, at: now) }
        }

        /// Every book's live holds at `now`, and that each restores from its snapshot.
        func holds(at now: Instant) throws -> [Hold] {
            let holds = ledger.holds(at: now)
            for scheduler in schedulers { #expect(scheduler.holds(at: now) == holds) }
            #expect(try Ledger(rules: ledger.rules, snapshot: ledger.snapshot()).snapshot() == ledger.snapshot())
            #expect(schedulers[0].snapshot() == ledger.snapshot())
            return holds
        }
    }

    /// Holds for days 1 (expired, never confirmed: its cell still names it), 2 (expired, its slot
    /// then booked by another user) and 3 (confirmed), after one for day 7. Releasing the days before day 4 forgets
    /// all three, leaves no entry behind in the holder's list and no key, and counts the active
    /// bookings right (a hold is not one); a hold of a later day lives on and confirms.
    @Test func releaseForgetsTheHoldsOfReleasedDays() throws {
        var books = Books(try Self.rules())
        let now = try Self.noon(0)
        let expired = Fixture.slot(try Self.day(1), 10)
        let overtaken = Fixture.slot(try Self.day(2), 10)
        let confirmed = Fixture.slot("IST", "1", try Self.day(3), 9)
        // Made first, for a date not released: the released holds after it are found all the same.
        _ = try books.hold(Fixture.slot(try Self.day(7), 11), for: 3, at: now)
        _ = try books.hold(expired, for: 1, at: now)
        _ = try books.hold(overtaken, for: 1, at: now)
        let later = Instant(secondsSinceEpoch: now.secondsSinceEpoch + 3_600)
        _ = try books.hold(confirmed, for: 1, at: later)
        try books.confirm(confirmed, by: 1, at: later)
        try books.reserve(overtaken, for: 2, at: later)
        #expect(books.ledger.slots.lastHold.count == 4)

        let release = try Self.noon(5)
        try books.release(before: try Self.day(4), at: release)
        #expect(try books.holds(at: release).isEmpty)
        #expect(books.ledger.slots.lastHold.count == 1)
        #expect(books.ledger.users.activeTotal == 0)
        let holder = try #require(books.ledger.users.find(1))
        #expect(books.ledger.users.states[holder].active == 0)
        #expect(books.ledger.users.states[holder].ended == -1)

        // A confirm or release on a released date answers `released`, not as if no hold had been.
        let refusal = Rejection(.released, slot: confirmed, user: 1, date: confirmed.date)
        #expect(throws: refusal) { try books.ledger.confirm(confirmed, by: 1, at: release) }
        #expect(throws: Rejection(.released, slot: expired, user: 1, date: expired.date)) {
            try books.ledger.releaseHold(expired, by: 1, at: release)
        }
        for scheduler in books.schedulers {
            #expect(throws: refusal) { try scheduler.confirm(confirmed, by: 1, at: release) }
        }
        #expect(refusal.message(in: .english).contains("released"))

        let kept = Fixture.slot(try Self.day(6), 10)
        let hold = try books.hold(kept, for: 3, at: release)
        try books.release(before: try Self.day(5), at: release)
        #expect(try books.holds(at: release) == [hold])
        try books.confirm(kept, by: 3, at: release)
        #expect(books.ledger.users.activeTotal == 1)
    }

    /// The holds of released dates leave memory: a ledger that made 5,000 holds (one per user,
    /// over 70 days) keeps less than one chunk of them once those dates are released, and
    /// holds made after the release get new indices and work as before.
    @Test func releasedHoldsLeaveMemory() throws {
        let rules = try Rules(
            catalog: try Catalog([Fixture.london, Fixture.istanbul]),
            policy: Policy(maxUpcomingBookings: 2, horizon: .unlimited, hold: .seconds(600), maxHoldsPerUser: 1))
        var ledger = Ledger(rules: rules)
        let now = try Self.noon(0)
        let slots = try (1...70).flatMap { d in
            try ["1", "2"].flatMap { socket in
                try (0..<24).map { Fixture.slot("LON", SocketID(socket), try Self.day(d), $0) }
            } + (0..<24).map { Fixture.slot("IST", "1", try Self.day(d), $0) }
        }
        for (user, slot) in slots.prefix(5_000).enumerated() {
            _ = try ledger.hold(slot, for: UserID(UInt64(user)), at: now)
        }
        #expect(ledger.slots.holds.storedCount == 5_000)
        let release = try Self.noon(75)
        try ledger.releaseDays(before: try Self.day(74), at: release)
        #expect(ledger.slots.holds.storedCount < RecordColumn<HoldRecord>.chunkSize)
        #expect(ledger.slots.lastHold.isEmpty && ledger.users.activeTotal == 0)
        let later = Fixture.slot(try Self.day(76), 9)
        let hold = try ledger.hold(later, for: 1, at: release)
        #expect(ledger.holds(at: release) == [hold])
        #expect(try ledger.confirm(later, by: 1, at: release).slot == later)
    }
}
