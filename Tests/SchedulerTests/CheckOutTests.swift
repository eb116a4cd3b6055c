import Foundation
import SlotScheduler
import Testing

@Suite("Check-out and access codes")
struct CheckOutTests {
    /// One upcoming booking per user, 15 minutes early, 10 minutes grace.
    static let policy = Policy(
        maxUpcomingBookings: 1, earlyCheckIn: .seconds(900), noShowGrace: .seconds(600))
    /// London with socket 1 carrying a code (a vehicle's QR code).
    static let stations: [Station] = {
        var london = Fixture.london
        london.sockets[0].accessCode = "QR-7F3A"
        return [london, Fixture.heathrow]
    }()

    static func at(_ booking: Booking, _ offset: Int64) -> Instant {
        Instant(secondsSinceEpoch: booking.start.secondsSinceEpoch + offset)
    }

    /// A check-out ends the session: fulfilled, both times kept, the slot free for another user
    /// and the owner's limit free for the next booking; a second check-out, a cancel and a
    /// check-in after it are refused as already checked out.
    @Test func endsTheSession() throws {
        var ledger = try Fixture.ledger(Self.policy, stations: Self.stations)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 10), user: 1), at: now)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 12), user: 1), at: now) }?
                .reason == .userLimitReached)
        try ledger.checkIn(a.id, by: 1, at: Self.at(a, -600))
        let ended = try ledger.checkOut(a.id, by: 1, at: Self.at(a, -300))
        #expect(ended.status == .fulfilled)
        #expect(ended.checkedInAt == Self.at(a, -600) && ended.checkedOutAt == Self.at(a, -300))
        #expect(ledger.booking(a.id) == ended)
        // Its hour had not started: another user books it; the owner books the next one.
        let taken = try ledger.reserve(Fixture.request(a.slot, user: 2), at: Self.at(a, -240))
        #expect(taken.slot == a.slot && taken.user == 2)
        let next = try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 12), user: 1), at: Self.at(a, -200))
        #expect(next.user == 1)
        for (name, attempt) in [
            ("check-out", { () throws(Rejection) in _ = try ledger.checkOut(a.id, by: 1, at: Self.at(a, 0)) }),
            ("cancel", { () throws(Rejection) in _ = try ledger.cancel(a.id, by: 1, at: Self.at(a, 0)) }),
            ("check-in", { () throws(Rejection) in _ = try ledger.checkIn(a.id, by: 1, at: Self.at(a, 0)) }),
        ] {
            #expect(refusal(attempt)?.reason == .alreadyCheckedOut, "\(name)")
        }
        let split = ledger.bookings(of: 1, at: Self.at(a, 0))
        #expect(split.fulfilled.map(\.id) == [a.id] && split.cancelled.isEmpty && split.upcoming.map(\.id) == [next.id])
        #expect(ledger.events.suffix(3).first == .checkedOut(a.id, user: 1, at: Self.at(a, -300)))
        #expect(ledger._consistencyProblems().isEmpty)
    }

    /// Refused with a reason, changing nothing: never checked in, another user's, unknown,
    /// cancelled.
    @Test func refusals() throws {
        var ledger = try Fixture.ledger(Self.policy, stations: Self.stations)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 10), user: 1), at: now)
        let b = try ledger.reserve(Fixture.request(Fixture.slot("LHR", "A", day, 10), user: 2), at: now)
        let events = ledger.eventCount
        let notCheckedIn = refusal { try ledger.checkOut(a.id, by: 1, at: Self.at(a, 0)) }
        #expect(notCheckedIn?.reason == .notCheckedIn && notCheckedIn?.booking == a.id)
        #expect(
            notCheckedIn?.message(in: .english) == "Booking \(a.id) was not checked in, so it cannot be checked out.")
        try ledger.checkIn(a.id, by: 1, at: Self.at(a, 0))
        #expect(refusal { try ledger.checkOut(a.id, by: 2, at: Self.at(a, 60)) }?.reason == .notOwner)
        #expect(
            refusal { try ledger.checkOut(BookingID(999_999), by: 1, at: Self.at(a, 60)) }?.reason == .unknownBooking)
        try ledger.cancel(b.id, by: 2, at: now)
        #expect(refusal { try ledger.checkOut(b.id, by: 2, at: Self.at(b, 60)) }?.reason == .alreadyCancelled)
        #expect(ledger.eventCount == events + 2)  // the check-in and the cancel
        #expect(ledger.booking(a.id)?.status == .active && ledger.booking(a.id)?.checkedOutAt == nil)
        #expect(Rejection.Reason.notCheckedIn.category == .conflict)
        #expect(Rejection.Reason.alreadyCheckedOut.category == .conflict)
    }

    /// A socket with a code checks in only with exactly that code; the refusal never tells it;
    /// a socket without one needs none.
    @Test func accessCodes() throws {
        var ledger = try Fixture.ledger(Self.policy, stations: Self.stations)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let coded = try ledger.reserve(Fixture.request(Fixture.slot("LON", "1", day, 10), user: 1), at: now)
        let open = try ledger.reserve(Fixture.request(Fixture.slot("LHR", "A", day, 10), user: 2), at: now)
        for code in [nil, "QR-7F3", "qr-7f3a", "QR-7F3A ", "QR-7F3B"] as [String?] {
            let wrong = refusal { try ledger.checkIn(coded.id, by: 1, accessCode: code, at: Self.at(coded, 0)) }
            #expect(wrong?.reason == .wrongAccessCode, "\(String(describing: code))")
            for language in MessageLanguage.allCases {
                #expect(wrong?.message(in: language).contains("7F3A") == false)
            }
            #expect(String(describing: wrong).contains("7F3A") == false)
        }
        #expect(
            refusal { try ledger.checkIn(coded.id, by: 2, accessCode: "QR-7F3A", at: Self.at(coded, 0)) }?
                .reason == .notOwner)
        let checked = try ledger.checkIn(coded.id, by: 1, accessCode: "QR-7F3A", at: Self.at(coded, 0))
        #expect(checked.checkedInAt == Self.at(coded, 0))
        #expect(try ledger.checkIn(open.id, by: 2, at: Self.at(open, 0)).checkedInAt == Self.at(open, 0))
        #expect(Rejection.Reason.wrongAccessCode.category == .invalid)
        // A code that breaks the identifier rule is refused by the catalog, naming the field.
        var bad = Self.stations
        bad[0].sockets[1].accessCode = " "
        #expect(throws: InvalidValue.self) { try Catalog(bad) }
    }

    /// The journal replays check-outs, and a snapshot (and its JSON, version 5) restores them:
    /// the same bookings, lists and free slots.
    @Test func replayAndRestore() throws {
        var ledger = try Fixture.ledger(Self.policy, stations: Self.stations)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let a = try ledger.reserve(Fixture.request(Fixture.slot("LON", "1", day, 10), user: 1), at: now)
        try ledger.checkIn(a.id, by: 1, accessCode: "QR-7F3A", at: Self.at(a, -60))
        try ledger.checkOut(a.id, by: 1, at: Self.at(a, 1_800))
        let snapshot = ledger.snapshot()
        let replayed = try Ledger(rules: ledger.rules, replaying: ledger.events)
        #expect(replayed.snapshot() == snapshot)
        let json = try JSONEncoder().encode(snapshot)
        #expect(String(decoding: json, as: UTF8.self).contains(#""version":5"#))
        let restored = try Ledger(rules: ledger.rules, snapshot: try JSONDecoder().decode(Snapshot.self, from: json))
        #expect(restored.snapshot() == snapshot)
        #expect(restored.bookings(of: 1, at: Self.at(a, 3_600)) == ledger.bookings(of: 1, at: Self.at(a, 3_600)))
        // A check-out of a booking never checked in does not replay.
        let bogus = [ledger.events[0], Event.checkedOut(a.id, user: 1, at: Self.at(a, 0))]
        #expect(throws: ReplayError.self) { try Ledger(rules: ledger.rules, replaying: bogus) }
        // An older snapshot version with a check-out is refused.
        let old = String(decoding: json, as: UTF8.self).replacingOccurrences(of: #""version":5"#, with: #""version":3"#)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Snapshot.self, from: Data(old.utf8)) }
    }

    /// The scheduler decides check-outs as the ledger does, on any shard count.
    @Test(arguments: [1, 4]) func schedulerAgrees(shards: Int) throws {
        var ledger = try Fixture.ledger(Self.policy, stations: Self.stations)
        let scheduler = Scheduler(rules: ledger.rules, shards: shards)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let request = Fixture.request(Fixture.slot("LON", "1", day, 10), user: 1)
        let a = try ledger.reserve(request, at: now)
        let b = try scheduler.reserve(request, at: now)
        #expect(refusal { try scheduler.checkOut(b.id, by: 1, at: Self.at(b, 0)) }?.reason == .notCheckedIn)
        try ledger.checkIn(a.id, by: 1, accessCode: "QR-7F3A", at: Self.at(a, 0))
        try scheduler.checkIn(b.id, by: 1, accessCode: "QR-7F3A", at: Self.at(b, 0))
        let fromLedger = try ledger.checkOut(a.id, by: 1, at: Self.at(a, 900))
        let fromScheduler = try scheduler.checkOut(b.id, by: 1, at: Self.at(b, 900))
        #expect(fromScheduler.status == fromLedger.status && fromScheduler.checkedOutAt == fromLedger.checkedOutAt)
        #expect(scheduler.bookings(of: 1, at: Self.at(b, 3_600)).fulfilled.map(\.id) == [b.id])
    }
}
