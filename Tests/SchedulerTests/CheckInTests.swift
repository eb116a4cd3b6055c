import Foundation
import SlotScheduler
import Testing

@Suite("Check-in and no-shows")
struct CheckInTests {
    /// 15 minutes early, 10 minutes grace; 2 no-shows in the last 7 days lower the limit to 1.
    static let policy = Policy(
        maxUpcomingBookings: 3, cancellationCutoff: .seconds(600), earlyCheckIn: .seconds(900),
        noShowGrace: .seconds(600), noShowLimit: Policy.NoShowLimit(noShows: 2, days: 7, limit: 1))

    static func at(_ booking: Booking, _ offset: Int64) -> Instant {
        Instant(secondsSinceEpoch: booking.start.secondsSinceEpoch + offset)
    }

    /// Check-in opens at start − early (included) and closes at start + grace (excluded); each
    /// refusal says when, in the station's time; a repeat returns the booking unchanged.
    @Test func window() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let b = try ledger.reserve(Fixture.request(Fixture.slot(day, 12), user: 1), at: now)
        let early = refusal { try ledger.checkIn(a.id, by: 1, at: Self.at(a, -901)) }
        #expect(early?.reason == .checkInNotOpen)
        #expect(early?.instant == Self.at(a, -900))
        #expect(early?.booking == a.id)
        #expect(
            early?.message(in: .english)
                == "Booking \(a.id) cannot be checked in yet; check-in opens at 2018-06-10 09:45 Europe/London (UTC+01:00)."
        )
        #expect(early?.message(in: .turkish).contains("henüz giriş yapılamaz") == true)
        let checked = try ledger.checkIn(a.id, by: 1, at: Self.at(a, -900))
        #expect(checked.checkedInAt == Self.at(a, -900))
        #expect(checked.status == .active && checked.id == a.id)
        #expect(try ledger.checkIn(a.id, by: 1, at: Self.at(a, 3_000)) == checked)
        #expect(ledger.eventCount == 3)
        let late = refusal { try ledger.checkIn(b.id, by: 1, at: Self.at(b, 600)) }
        #expect(late?.reason == .checkInClosed)
        #expect(late?.instant == Self.at(b, 600))
        #expect(late?.message(in: .english).contains("no-show") == true)
        #expect(late?.message(in: .turkish).contains("artık giriş yapılamaz") == true)
        #expect(try ledger.checkIn(b.id, by: 1, at: Self.at(b, 599)).checkedInAt == Self.at(b, 599))
        #expect(Rejection.Reason.checkInNotOpen.category == .conflict)
        #expect(Rejection.Reason.checkInClosed.category == .conflict)
    }

    /// Another user's, an unknown and a cancelled booking are refused, and a refusal changes nothing.
    @Test func refusals() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let b = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        try ledger.cancel(b.id, by: 1, at: now)
        let before = ledger.snapshot()
        #expect(refusal { try ledger.checkIn(a.id, by: 2, at: a.start) }?.reason == .notOwner)
        #expect(refusal { try ledger.checkIn(BookingID(999), by: 1, at: a.start) }?.reason == .unknownBooking)
        #expect(refusal { try ledger.checkIn(b.id, by: 1, at: b.start) }?.reason == .alreadyCancelled)
        #expect(ledger.snapshot() == before)
        #expect(ledger.eventCount == 3)
    }

    /// The four lists: upcoming (soonest first), fulfilled, no-show and cancelled (most recent
    /// first); `past` keeps the ended active bookings.
    @Test func split() throws {
        var ledger = try Fixture.ledger(
            Policy(maxUpcomingBookings: 10, earlyCheckIn: .seconds(900), noShowGrace: .seconds(600)))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let b = try (8...13).map { try ledger.reserve(Fixture.request(Fixture.slot(day, $0), user: 1), at: now) }
        try ledger.cancel(b[5].id, by: 1, at: now)
        try ledger.checkIn(b[0].id, by: 1, at: b[0].start)
        try ledger.checkIn(b[2].id, by: 1, at: b[2].start)
        // 11:05 local: b[0] and b[2] fulfilled, b[1] a no-show, b[3] under way within its grace.
        let at = Self.at(b[3], 300)
        let split = ledger.bookings(of: 1, at: at)
        #expect(split.upcoming.map(\.id) == [b[3].id, b[4].id])
        #expect(split.fulfilled.map(\.id) == [b[2].id, b[0].id])
        #expect(split.noShow.map(\.id) == [b[1].id])
        #expect(split.cancelled.map(\.id) == [b[5].id])
        #expect(split.past.map(\.id) == [b[2].id, b[1].id, b[0].id])
        #expect(try #require(ledger.booking(b[1].id)).isNoShow(at: at, grace: 600))
        // After the grace b[3] is a no-show too; nothing was written for it.
        let count = ledger.eventCount
        #expect(ledger.bookings(of: 1, at: Self.at(b[3], 600)).noShow.map(\.id) == [b[3].id, b[1].id])
        #expect(ledger.eventCount == count)
        // The scheduler splits the same way.
        let scheduler = try Scheduler(rules: ledger.rules, shards: 4, replaying: ledger.events)
        #expect(scheduler.bookings(of: 1, at: at) == split)
        // Encoded lists round-trip.
        let data = try JSONEncoder().encode(split)
        #expect(try JSONDecoder().decode(UserBookings.self, from: data) == split)
    }

    /// Two no-shows in the last 7 days lower the limit to 1; a check-in is not a no-show; when the
    /// no-shows leave the window, the limit is back.
    @Test func noShowLimit() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let b = try (8...10).map { try ledger.reserve(Fixture.request(Fixture.slot(day, $0), user: 1), at: now) }
        try ledger.checkIn(b[2].id, by: 1, at: b[2].start)
        let later = Self.at(b[2], 3_600)  // b[0] and b[1] no-shows, b[2] fulfilled
        let next = Fixture.slot(day.adding(days: 1), 10)
        _ = try ledger.reserve(Fixture.request(next, user: 1), at: later)
        let refused = refusal {
            try ledger.reserve(Fixture.request(Fixture.slot(day.adding(days: 1), 11), user: 1), at: later)
        }
        #expect(refused?.reason == .userLimitReached)
        #expect(refused?.limit == 1)
        #expect(refused?.message(in: .english).contains("You already have 1 upcoming bookings") == true)
        // Other users keep their limit.
        for hour in 12...14 {
            _ = try ledger.reserve(Fixture.request(Fixture.slot(day.adding(days: 1), hour), user: 2), at: later)
        }
        // Seven days after b[1] started it has left the window: one no-show is not enough.
        let week = Instant(secondsSinceEpoch: b[1].start.secondsSinceEpoch + 7 * 86_400 + 1)
        let slot = Fixture.slot(day.adding(days: 8), 10)
        #expect(try ledger.reserve(Fixture.request(slot, user: 1), at: week).slot == slot)
        // Holds and confirms obey the lowered limit too.
        var second = try Fixture.ledger(Policy(maxUpcomingBookings: 3, hold: .seconds(600), maxHoldsPerUser: 2))
        #expect(second.policy.noShowLimit == nil)
        _ = try second.reserve(Fixture.request(Fixture.slot(day, 8), user: 1), at: now)
        let after = Instant(secondsSinceEpoch: b[0].start.secondsSinceEpoch + 7_200)
        _ = try second.hold(Fixture.slot(day.adding(days: 1), 10), for: 1, at: after)  // no-show policy off
        var lowered = try Fixture.ledger(Self.policy)
        _ = try (8...9).map { try lowered.reserve(Fixture.request(Fixture.slot(day, $0), user: 1), at: now) }
        _ = try lowered.hold(Fixture.slot(day.adding(days: 1), 10), for: 1, at: later)
        #expect(refusal { try lowered.hold(Fixture.slot(day.adding(days: 1), 11), for: 1, at: later) }?.limit == 1)
    }

    /// The check-in is journalled as one `checkedIn` event; the journal, the snapshot (version 3,
    /// carrying `checkedInAt`) and its JSON rebuild the same state; a snapshot without check-ins
    /// keeps its older version.
    @Test func journalAndSnapshot() throws {
        var ledger = try Fixture.ledger(Self.policy)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let plain = try JSONEncoder().encode(ledger.snapshot())
        #expect(String(decoding: plain, as: UTF8.self).contains(#""version":1"#))
        let checked = try ledger.checkIn(a.id, by: 1, at: a.start)
        #expect(ledger.events.last == .checkedIn(a.id, user: 1, at: a.start))
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
        #expect(replayed.events == ledger.events)
        let snapshot = ledger.snapshot()
        #expect(snapshot.bookings == [checked])
        let json = try JSONEncoder().encode(snapshot)
        #expect(String(decoding: json, as: UTF8.self).contains(#""version":3"#))
        let restored = try Ledger(rules: ledger.rules, snapshot: try JSONDecoder().decode(Snapshot.self, from: json))
        #expect(restored.snapshot() == snapshot)
        #expect(
            refusal {
                var copy = restored
                return try copy.checkIn(a.id, by: 1, at: a.start)
            } == nil)
        #expect(restored.events.isEmpty)
        // A version-2 snapshot may not carry a check-in.
        let old = String(decoding: json, as: UTF8.self).replacingOccurrences(of: #""version":3"#, with: #""version":2"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Snapshot.self, from: Data(old.utf8)) }
        // An event journal: replaying a second check-in of the same booking is refused.
        #expect(throws: ReplayError.self) {
            try Ledger(rules: ledger.rules, replaying: ledger.events + [.checkedIn(a.id, user: 1, at: a.start)])
        }
    }

    /// A reschedule moves a booking to a new hour: its check-in, made for the old hour, is cleared.
    @Test func rescheduleClearsCheckIn() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, earlyCheckIn: .seconds(86_400)))
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let a = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        let checkIn = Self.at(a, -3_600)
        try ledger.checkIn(a.id, by: 1, at: checkIn)
        let moved = try ledger.reschedule(
            RescheduleRequest(booking: a.id, user: 1, to: Fixture.slot(day, 14)), at: checkIn)
        #expect(moved.booking.checkedInAt == nil)
        #expect(ledger.booking(a.id)?.checkedInAt == nil)
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == ledger.snapshot())
    }

    /// The scheduler decides as the ledger, with 4 shards.
    @Test func schedulerAgrees() throws {
        let scheduler = try Fixture.scheduler(Self.policy)
        let now = try Fixture.earlyNow()
        let day = try Fixture.day()
        let a = try scheduler.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        #expect(refusal { try scheduler.checkIn(a.id, by: 1, at: Self.at(a, -901)) }?.reason == .checkInNotOpen)
        #expect(refusal { try scheduler.checkIn(a.id, by: 2, at: a.start) }?.reason == .notOwner)
        let checked = try scheduler.checkIn(a.id, by: 1, at: a.start)
        #expect(checked.checkedInAt == a.start)
        #expect(try scheduler.checkIn(a.id, by: 1, at: Self.at(a, 900)) == checked)
        #expect(scheduler.bookings(of: 1, at: Self.at(a, 3_600)).fulfilled == [checked])
        let restored = try Ledger(rules: scheduler.rules, snapshot: scheduler.snapshot())
        #expect(restored.booking(a.id) == checked)
    }

    /// The policy's bounds, and a policy stored before check-in decodes with the defaults (15
    /// minutes early, the whole hour as grace, no no-show limit).
    @Test func policyBoundsAndDefaults() throws {
        let bad: [(Policy, String)] = [
            (Policy(earlyCheckIn: .seconds(-1)), "policy.earlyCheckInSeconds"),
            (Policy(earlyCheckIn: .seconds(86_401)), "policy.earlyCheckInSeconds"),
            (Policy(earlyCheckIn: .zero, noShowGrace: .seconds(3_601)), "policy.noShowGraceSeconds"),
            (
                Policy(earlyCheckIn: .zero, noShowLimit: .init(noShows: 0, days: 1, limit: 1)),
                "policy.noShowLimit.noShows"
            ),
            (
                Policy(earlyCheckIn: .zero, noShowLimit: .init(noShows: 1, days: 367, limit: 1)),
                "policy.noShowLimit.days"
            ),
            (
                Policy(earlyCheckIn: .zero, noShowLimit: .init(noShows: 1, days: 1, limit: -1)),
                "policy.noShowLimit.limit"
            ),
        ]
        for (policy, field) in bad {
            #expect(throws: InvalidValue.self) { try policy.validated() }
            do { _ = try policy.validated() } catch { #expect(error.field == field) }
        }
        let old = Data(
            #"{"maxUpcomingBookings":3,"horizon":{"unlimited":{}},"minimumNoticeSeconds":0,"cancellationCutoffSeconds":0,"userLimits":[]}"#
                .utf8)
        let decoded = try JSONDecoder().decode(Policy.self, from: old)
        #expect(decoded.earlyCheckInSeconds == 900 && decoded.noShowGraceSeconds == 3_600 && decoded.noShowLimit == nil)
        #expect(decoded == Policy(maxUpcomingBookings: 3))
        let round = try JSONDecoder().decode(Policy.self, from: try JSONEncoder().encode(Self.policy))
        #expect(round == Self.policy)
    }
}
