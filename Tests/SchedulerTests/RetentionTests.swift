import Foundation
import Testing

@testable import SlotScheduler

/// Retention (``Ledger/releaseDays(before:at:)``): released days leave memory, later calls
/// decide as before, and a released booking is answered as released, never as unknown.
@Suite("Retention: releasing past days")
struct RetentionTests {
    static func rules(limit: Int = 2) throws -> Rules {
        try Rules(
            catalog: try Catalog([Fixture.london, Fixture.istanbul]),
            policy: Policy(maxUpcomingBookings: limit, horizon: .rollingDays(30)))
    }

    static func reason(_ body: () throws(Rejection) -> some Any) -> Rejection.Reason? {
        do throws(Rejection) {
            _ = try body()
            return nil
        } catch { return error.reason }
    }

    /// 2018-06-01, and noon UTC on day `d` after it.
    static func start() throws -> LocalDate { try LocalDate(parsing: "2018-06-01") }
    static func noon(_ d: Int) throws -> Instant { Instant.utc(try start().adding(days: d), hour: 12) }

    /// Bookings made on day 0: `kept` on day 5, then `old` on day 1 (both with request ids) and
    /// `cancelled` on day 2.
    struct Setup {
        var ledger: Ledger
        var old: Booking
        var cancelled: Booking
        var kept: Booking
    }

    static func setup() throws -> Setup {
        var ledger = Ledger(rules: try rules())
        let now = try noon(0)
        let day = try start()
        // The kept booking comes first, so the released ones are not at the front of the records:
        // they are released in place (their request ids forgotten without being removed yet).
        let kept = try ledger.reserve(
            Fixture.request(Fixture.slot(day.adding(days: 5), 10), user: 1, id: "r-kept"), at: now)
        let old = try ledger.reserve(
            Fixture.request(Fixture.slot(day.adding(days: 1), 10), user: 1, id: "r-old"), at: now)
        let cancelled = try ledger.reserve(
            Fixture.request(Fixture.slot("IST", "1", day.adding(days: 2), 9), user: 2), at: now)
        try ledger.cancel(cancelled.id, by: 2, at: now)
        return Setup(ledger: ledger, old: old, cancelled: cancelled, kept: kept)
    }

    /// Released bookings answer `released` (lookup, cancel); held ones and unknown ids are unchanged.
    @Test func releasedBookingsAnswerReleased() throws {
        var s = try Self.setup()
        let now = try Self.noon(4)
        try s.ledger.releaseDays(before: try Self.start().adding(days: 3), at: now)
        #expect(s.ledger.releasedBefore == (try Self.start().adding(days: 3)))
        #expect(s.ledger.lookup(s.old.id) == .released)
        #expect(s.ledger.lookup(s.cancelled.id) == .released)
        #expect(s.ledger.booking(s.old.id) == nil)
        #expect(s.ledger.lookup(s.kept.id) == .booking(s.kept))
        #expect(s.ledger.lookup(BookingID(99)) == .unknown)
        #expect(throws: Rejection(.released, booking: s.old.id, user: 1)) {
            try s.ledger.cancel(s.old.id, by: 1, at: now)
        }
        #expect(throws: Rejection(.unknownBooking, booking: BookingID(99), user: 1)) {
            try s.ledger.cancel(BookingID(99), by: 1, at: now)
        }
        #expect(s.ledger.allBookings == [s.kept])
        #expect(s.ledger.activeBookingCount == 1)
        #expect(s.ledger.bookings(of: 1, at: now).past.isEmpty)
        // The next id continues after the released ones.
        let next = try s.ledger.reserve(
            Fixture.request(Fixture.slot(try Self.start().adding(days: 6), 10), user: 3), at: now)
        #expect(next.id == BookingID(4))
        let message = Rejection(.released, booking: s.old.id).message(in: .english)
        #expect(message.contains("released"))
    }

    /// A cutoff after today's date in the westernmost zone is refused, typed, and changes nothing.
    @Test func unsafeCutoffIsRefused() throws {
        var s = try Self.setup()
        let now = try Self.noon(4)
        let latest = s.ledger.rules.latestReleasableDate(at: now)
        #expect(latest == (try Self.start().adding(days: 4)))
        let before = s.ledger.snapshot()
        #expect(throws: RetentionError(cutoff: latest.adding(days: 1), latest: latest, now: now)) {
            try s.ledger.releaseDays(before: latest.adding(days: 1), at: now)
        }
        #expect(s.ledger.snapshot() == before)
        #expect(s.ledger.releasedBefore == nil)
        let scheduler = Scheduler(rules: try Self.rules(), shards: 3)
        #expect(throws: RetentionError.self) { try scheduler.releaseDays(before: latest.adding(days: 1), at: now) }
        try scheduler.releaseDays(before: latest, at: now)
        #expect(scheduler.releasedBefore == latest)
    }

    /// A released date is past for every caller, and its availability can no longer change.
    @Test func releasedDatesRefuse() throws {
        var s = try Self.setup()
        let cutoff = try Self.start().adding(days: 3)
        try s.ledger.releaseDays(before: cutoff, at: try Self.noon(4))
        // A caller whose clock is behind (day 0) still sees day 2 as past.
        let late = Fixture.request(Fixture.slot(cutoff.adding(days: -1), 10), user: 5)
        let behind = try Self.noon(0)
        #expect(Self.reason { () throws(Rejection) in try s.ledger.reserve(late, at: behind) } == .slotInPast)
        let change = AvailabilityChange.close("LON", socket: "1", on: cutoff.adding(days: -1))
        #expect(throws: Rejection(.released, value: change.description, date: change.date)) {
            try s.ledger.changeAvailability(change, at: try Self.noon(4))
        }
        #expect(s.ledger.slots.dayBlock.allSatisfy { $0 >= 0 } || s.ledger.slots.firstDay >= cutoff.dayNumber)
    }

    /// A retried request whose booking was released never books twice; the id is then free.
    @Test func requestIDsOfReleasedBookings() throws {
        var s = try Self.setup()
        let now = try Self.noon(4)
        try s.ledger.releaseDays(before: try Self.start().adding(days: 3), at: now)
        let retry = Fixture.request(s.old.slot, user: 1, id: "r-old")
        #expect(Self.reason { () throws(Rejection) in try s.ledger.reserve(retry, at: now) } == .slotInPast)
        #expect(s.ledger.allBookings.count == 1)
        let reused = try s.ledger.book(
            Fixture.request(Fixture.slot(try Self.start().adding(days: 7), 10), user: 1, id: "r-old"), at: now)
        #expect(!reused.isReplay)
        #expect(s.ledger.users.requests.count == 2)  // r-kept and the reused r-old
        // The kept booking's request id still replays.
        let replay = try s.ledger.book(Fixture.request(s.kept.slot, user: 1, id: "r-kept"), at: now)
        #expect(replay.isReplay && replay.booking == s.kept)
    }

    /// The limit counts what it did before: released bookings had ended.
    /// A reschedule's request id whose move went to a released date is forgotten (in memory, in
    /// snapshots, for a retry), in a ledger and in a scheduler; one to a held date still replays.
    @Test func rescheduleRequestIDsToReleasedDates() throws {
        let rules = try Self.rules(limit: 4)
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 2)
        let now = try Self.noon(0)
        let day = try Self.start()
        func move(_ booking: Booking, to slot: Slot, id: RequestID) -> RescheduleRequest {
            RescheduleRequest(booking: booking.id, user: booking.user, to: slot, requestID: id)
        }
        var moves: [RescheduleRequest] = []
        for (d, id) in [(5, "m-kept"), (1, "m-old")] {
            let request = Fixture.request(Fixture.slot(day.adding(days: d), 10), user: 1)
            let booking = try ledger.reserve(request, at: now)
            #expect(try scheduler.reserve(request, at: now) == booking)
            moves.append(move(booking, to: Fixture.slot(day.adding(days: d), 11), id: RequestID(id)))
            #expect(
                try ledger.reschedule(moves[moves.count - 1], at: now)
                    == scheduler.reschedule(moves[moves.count - 1], at: now))
        }
        #expect(ledger.users.reschedules.count == 2)
        let later = try Self.noon(4)
        try ledger.releaseDays(before: day.adding(days: 3), at: later)
        try scheduler.releaseDays(before: day.adding(days: 3), at: later)
        #expect(ledger.users.reschedules.count == 1)
        #expect(ledger.snapshot().rescheduleRequests.map(\.requestID) == [RequestID("m-kept")])
        #expect(scheduler.snapshot().rescheduleRequests.map(\.requestID) == [RequestID("m-kept")])
        let restored = try Ledger(rules: rules, snapshot: scheduler.snapshot())
        #expect(restored.users.reschedules.count == 1)
        // The held move replays; the forgotten id names a new move of the held booking.
        #expect(try ledger.reschedule(moves[0], at: later).isReplay)
        #expect(try scheduler.reschedule(moves[0], at: later).isReplay)
        var reused = moves[0]
        reused.requestID = RequestID("m-old")
        reused.slot = Fixture.slot(day.adding(days: 5), 12)
        #expect(try !ledger.reschedule(reused, at: later).isReplay)
        #expect(try !scheduler.reschedule(reused, at: later).isReplay)
    }

    @Test func limitAcrossARelease() throws {
        var ledger = Ledger(rules: try Self.rules(limit: 2))
        let day = try Self.start()
        for d in 1...2 {
            _ = try ledger.reserve(
                Fixture.request(Fixture.slot(day.adding(days: d), 20), user: 1), at: try Self.noon(0))
        }
        // Days 1 and 2 reach the limit; at noon on day 2 the first has ended.
        try ledger.releaseDays(before: day.adding(days: 2), at: try Self.noon(2))
        #expect(ledger.activeBookingCount == 1)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day.adding(days: 4), 10), user: 1), at: try Self.noon(2))
        #expect(throws: Rejection.self) {
            try ledger.reserve(Fixture.request(Fixture.slot(day.adding(days: 5), 10), user: 1), at: try Self.noon(2))
        }
        #expect(ledger.users.entries.count == 2)  // the released entry's place is reused
    }

    /// A snapshot after a release restores the same state, the same released answers and the
    /// same next ids, into a ledger or a scheduler of any shard count; so does replaying the
    /// journal taken before the release and releasing again.
    @Test func snapshotAndReplayAcrossARelease() throws {
        var s = try Self.setup()
        let rules = try Self.rules()
        let events = s.ledger.events
        let cutoff = try Self.start().adding(days: 3)
        let now = try Self.noon(4)
        try s.ledger.releaseDays(before: cutoff, at: now)
        let snapshot = s.ledger.snapshot()
        #expect(snapshot.releasedBefore == cutoff)
        #expect(snapshot.lastIDs == [BookingID(3)])
        let data = try JSONEncoder().encode(snapshot)
        #expect(try JSONDecoder().decode(Snapshot.self, from: data) == snapshot)

        var restored = try Ledger(rules: rules, snapshot: snapshot)
        var replayed = try Ledger(rules: rules, replaying: events)
        try replayed.releaseDays(before: cutoff, at: now)
        let scheduler = try Scheduler(rules: rules, shards: 1, snapshot: snapshot)
        let across = try Scheduler(rules: rules, shards: 3, snapshot: snapshot)
        #expect(restored.snapshot() == snapshot)
        #expect(replayed.snapshot() == snapshot)
        #expect(scheduler.snapshot() == snapshot)
        #expect(across.snapshot().bookings == snapshot.bookings)
        for face in [
            restored.lookup(s.old.id), replayed.lookup(s.old.id), scheduler.lookup(s.old.id), across.lookup(s.old.id),
        ] {
            #expect(face == .released)
        }
        #expect(across.lookup(s.kept.id) == .booking(s.kept))
        let request = Fixture.request(Fixture.slot(cutoff.adding(days: 3), 11), user: 4)
        let a = try s.ledger.reserve(request, at: now)
        #expect(try restored.reserve(request, at: now) == a)
        #expect(try replayed.reserve(request, at: now) == a)
        #expect(try scheduler.reserve(request, at: now) == a)
        let b = try across.reserve(request, at: now)
        #expect(b.id != s.old.id && b.id != s.kept.id && b.id != s.cancelled.id)
        // The journal after the release replays onto the snapshot.
        #expect(
            try Ledger(rules: rules, snapshot: snapshot, replaying: s.ledger.events).snapshot() == s.ledger.snapshot())
        #expect(s.ledger.eventCount == events.count + 1)
        // Any count: the events a release kept (subtracting Int.min from the base overflowed).
        #expect(s.ledger.events(since: .min) == s.ledger.events)
        #expect(s.ledger.events(since: .max).isEmpty)
    }

    /// A snapshot after a release whose second booking has id `number` (and whose last id is it):
    /// the gap before it stands for released bookings.
    static func snapshotWithFarID(_ number: UInt64) throws -> (Snapshot, Rules) {
        var s = try Self.setup()
        let far = try s.ledger.reserve(
            Fixture.request(Fixture.slot(try Self.start().adding(days: 6), 10), user: 3, id: "r-far"),
            at: try Self.noon(0))
        try s.ledger.releaseDays(before: try Self.start().adding(days: 3), at: try Self.noon(4))
        var snapshot = s.ledger.snapshot()
        let i = try #require(snapshot.bookings.firstIndex { $0.id == far.id })
        snapshot.bookings[i].id = BookingID(number)
        snapshot.lastIDs = [BookingID(number)]
        return (snapshot, try Self.rules())
    }

    /// An id numbered past the records a book can index is refused with its event (it trapped:
    /// a record index beyond `Int32`), as is such a last id.
    @Test func snapshotIDsBeyondABooksRecordsAreRefused() throws {
        for number: UInt64 in [1 << 31, UInt64(SlotBook.restorableNumberLimit) + 1] {
            let (snapshot, rules) = try Self.snapshotWithFarID(number)
            #expect(throws: ReplayError.self) { try Ledger(rules: rules, snapshot: snapshot) }
            #expect(throws: ReplayError.self) { try Scheduler(rules: rules, shards: 1, snapshot: snapshot) }
        }
        let rules = try Self.rules()
        var lastOnly = try Self.snapshotWithFarID(4).0
        lastOnly.lastIDs = [BookingID((1 << 40) - 1)]
        #expect(throws: ReplayError.self) { try Ledger(rules: rules, snapshot: lastOnly) }
    }

    /// A large gap between a snapshot's ids costs a chunk per 4,096 skipped ids, not a record each
    /// (it appended one placeholder per id), and ids go on after it.
    @Test func aLargeGapBetweenSnapshotIDsStoresNoRecords() throws {
        let number = UInt64(SlotBook.restorableNumberLimit)
        let (snapshot, rules) = try Self.snapshotWithFarID(number)
        var ledger = try Ledger(rules: rules, snapshot: snapshot)
        #expect(ledger.slots.records.storedCount <= 3 * RecordColumn<BookingRecord>.chunkSize)
        #expect(ledger.allBookings == snapshot.bookings)
        #expect(ledger.lookup(BookingID(number)) == .booking(snapshot.bookings[1]))
        #expect(ledger.lookup(BookingID(number - 1)) == .released)
        let next = try ledger.reserve(
            Fixture.request(Fixture.slot(try Self.start().adding(days: 7), 10), user: 4), at: try Self.noon(4))
        #expect(next.id == BookingID(number + 1))
        let scheduler = try Scheduler(rules: rules, shards: 1, snapshot: snapshot)
        #expect(scheduler.allBookings == snapshot.bookings)
    }

    /// A long run with a release every day keeps about the open horizon in memory: day blocks
    /// are reused, stored records and journal entries stay bounded.
    @Test func storageStaysBounded() throws {
        let rules = try Self.rules(limit: 40)
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 2)
        let day = try Self.start()
        var maxBlocks = 0
        var maxRecords = 0
        for d in 0..<200 {
            let now = try Self.noon(d)
            for k in 0..<20 {
                let slot = Fixture.slot(day.adding(days: d + 1 + k % 30), k % 24)
                let request = Fixture.request(slot, user: UserID(UInt64(k % 5)), id: RequestID("r\(d)-\(k)"))
                let expected = Result { try ledger.reserve(request, at: now) }.map(\.id)
                let actual = Result { try scheduler.reserve(request, at: now) }.map(\.id)
                #expect(String(describing: expected) == String(describing: actual))
            }
            try ledger.releaseDays(before: day.adding(days: d - 1), at: now)
            try scheduler.releaseDays(before: day.adding(days: d - 1), at: now)
            if d >= 60 {
                maxBlocks = max(maxBlocks, ledger.slots.words.count / ledger.slots.regular.count)
                maxRecords = max(maxRecords, ledger.slots.records.storedCount)
            }
        }
        #expect(maxBlocks <= 40)
        #expect(maxRecords <= 20 * 31 * 2 + RecordColumn<BookingRecord>.chunkSize)
        #expect(ledger.slots.journal.count <= 20)
        #expect(ledger.users.requests.count <= 20 * 31)
        #expect(ledger.snapshot().bookings.map(\.id) == scheduler.snapshot().bookings.map(\.id))
        #expect(ledger.snapshot() == (try Ledger(rules: rules, snapshot: scheduler.snapshot()).snapshot()))
    }
}
