import Foundation
import SlotScheduler
import Testing

/// What a service built on the library needs (issue 11): categories, languages, ids as text,
/// `Date` conversion, new-versus-replay, restoring a scheduler, local times in messages.
@Suite struct ServiceGlueTests {
    @Test func everyReasonHasTheCategoryOfTheHTTPContract() {
        #expect(Rejection.Reason.unknownBooking.category == .notFound)
        #expect(Rejection.Reason.notOwner.category == .forbidden)
        for reason in [Rejection.Reason.slotTaken, .userLimitReached, .conflictingRequestID] {
            #expect(reason.category == .conflict)
        }
        for reason in [
            Rejection.Reason.slotInPast, .tooSoon, .beyondHorizon, .socketClosed, .invalidHour, .unknownStation,
            .unknownSocket, .invalidRequestID, .unsupportedDate,
        ] {
            #expect(reason.category == .invalid)
        }
        let used = Set(Rejection.Reason.allCases.map(\.category))
        #expect(used == Set(Rejection.Reason.Category.allCases))
    }

    /// A service answering 404 for an id it could never have issued (`abc`, or digits past
    /// `UInt64`) has no ``BookingID`` to give: the message names the text instead of `?`.
    @Test func anUnknownBookingWithoutAnIdNamesTheTextGiven() {
        let rejection = Rejection(.unknownBooking, value: "abc")
        #expect(rejection.message(in: .english) == "There is no booking abc.")
        #expect(rejection.message(in: .turkish) == "abc numaralı randevu yok.")
        #expect(Rejection(.unknownBooking, booking: BookingID(7)).message(in: .english) == "There is no booking 7.")
    }

    @Test(arguments: [
        ("tr", MessageLanguage.turkish), ("tr-TR", .turkish), ("TR_tr", .turkish), ("en-GB", .english),
        (" en ", .english),
    ])
    func languageFromATag(tag: String, language: MessageLanguage) {
        #expect(MessageLanguage(bcp47: tag) == language)
    }

    @Test func languagesWithoutMessagesAreNil() {
        for tag in ["de", "", "*", "english", String(repeating: "t", count: 1 << 16)] {
            #expect(MessageLanguage(bcp47: tag) == nil, "\(tag.prefix(10))")
        }
    }

    @Test(arguments: [
        ("de-DE, tr;q=0.8, en;q=0.5", MessageLanguage.turkish), ("en;q=0, tr;q=0.1", .turkish),
        ("fr, en-US;q=0.9, tr;q=0.9", .english), ("tr-TR,tr;q=0.9,en-US;q=0.8", .turkish), ("*", .english),
        ("de", .english), ("tr;q=banana", .english), ("", .english),
    ])
    func languageFromAcceptLanguage(header: String, language: MessageLanguage) {
        #expect(MessageLanguage.preferred(acceptLanguage: header) == language)
    }

    @Test func acceptLanguageFallback() {
        #expect(MessageLanguage.preferred(acceptLanguage: nil, fallback: .turkish) == .turkish)
        #expect(MessageLanguage.preferred(acceptLanguage: "de", fallback: .turkish) == .turkish)
        let huge = String(repeating: "de,", count: 10_000) + "tr"
        #expect(MessageLanguage.preferred(acceptLanguage: huge) == .english)
    }

    @Test func idsConvertToAndFromText() {
        #expect(BookingID("42") == BookingID(42))
        #expect(UserID(String(UserID(17))) == UserID(17))
        for bad in ["", "-1", " 42", "+42", "4 2", "18446744073709551616", "0x10"] {
            #expect(BookingID(bad) == nil, "\(bad)")
            #expect(UserID(bad) == nil, "\(bad)")
        }
        #expect(BookingID(String(UInt64.max))?.rawValue == .max)
        // Unlabelled references are no longer ambiguous.
        #expect(["a", "b"].map(RequestID.init) == [RequestID("a"), RequestID("b")])
        #expect(["S"].map(StationID.init) == [StationID("S")])
        #expect([UInt64(3)].map(UserID.init) == [UserID(3)])
        #expect(["7", "x"].map(UserID.init) == [UserID(7), nil])
        #expect(RequestID(String(RequestID("r-1"))) == "r-1")
    }

    @Test func instantsAndDates() {
        let instant = Instant(secondsSinceEpoch: 1_764_500_000)
        #expect(Instant(Date(instant)) == instant)
        #expect(Instant(Date(timeIntervalSince1970: 1.9)).secondsSinceEpoch == 1)
        #expect(Instant(Date(timeIntervalSince1970: -0.5)).secondsSinceEpoch == -1)
        #expect(Instant(Date(timeIntervalSince1970: 1e300)).secondsSinceEpoch == .max)
        #expect(Instant(Date(timeIntervalSince1970: -1e300)).secondsSinceEpoch == .min)
        #expect(Instant(Date(timeIntervalSince1970: .nan)).secondsSinceEpoch == 0)
    }

    /// A replayed request id comes back as a replay, also after the booking was cancelled.
    @Test func reservationSaysNewOrReplay() throws {
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let now = try Fixture.earlyNow()
        let request = Fixture.request(Fixture.slot(try Fixture.day(), 12), user: 1, id: "r1")
        let first = try ledger.book(request, at: now)
        #expect(!first.isReplay)
        #expect(try ledger.book(request, at: now).isReplay)
        try ledger.cancel(first.booking.id, by: 1, at: now)
        let afterCancel = try ledger.book(request, at: now)
        #expect(afterCancel.isReplay)
        #expect(afterCancel.booking.status == .cancelled)
        #expect(afterCancel.booking.id == first.booking.id)

        let made = try scheduler.book(request, at: now)
        #expect(!made.isReplay)
        try scheduler.cancel(made.booking.id, by: 1, at: now)
        let replay = try scheduler.book(request, at: now)
        #expect(replay.isReplay && replay.booking.status == .cancelled)
        #expect(!(try scheduler.book(Fixture.request(Fixture.slot(try Fixture.day(), 13), user: 1), at: now).isReplay))
    }

    /// A scheduler restored from a snapshot plus the events after it has the same bookings,
    /// availability and remembered request ids as the one that wrote them.
    @Test func schedulerRestoresFromSnapshotAndLaterEvents() throws {
        let scheduler = try Fixture.scheduler(shards: 4)
        let day = try Fixture.day()
        var now = try Fixture.earlyNow()
        let a = try scheduler.reserve(Fixture.request(Fixture.slot(day, 10), user: 1, id: "a"), at: now)
        _ = try scheduler.reserve(Fixture.request(Fixture.slot("IST", "1", day, 10), user: 2), at: now)
        now = now + .seconds(60)
        try scheduler.cancel(a.id, by: 1, at: now)
        let snapshot = scheduler.snapshot()
        let seen = scheduler.events.count
        now = now + .seconds(60)
        _ = try scheduler.reserve(Fixture.request(Fixture.slot(day, 11), user: 1, id: "b"), at: now)
        try scheduler.changeAvailability(.close("LHR", socket: nil, on: day), at: now)
        let later = Array(scheduler.events[seen...])
        #expect(later.count == 2)

        let restored = try Scheduler(rules: scheduler.rules, shards: 4, snapshot: snapshot, replaying: later)
        #expect(restored.snapshot() == scheduler.snapshot())
        #expect(restored.events == later)
        #expect(try restored.book(Fixture.request(Fixture.slot(day, 10), user: 1, id: "a"), at: now).isReplay)
        var ledger = try Ledger(
            rules: scheduler.rules, snapshot: Ledger(rules: scheduler.rules).snapshot(), replaying: [])
        #expect(ledger.allBookings.isEmpty)
        #expect(try !ledger.book(Fixture.request(Fixture.slot(day, 10), user: 1), at: now).isReplay)
    }

    /// Times in messages are the station's local time with its zone, in both languages.
    @Test func messagesGiveLocalTimes() throws {
        let policy = Policy(maxUpcomingBookings: 3, minimumNotice: .seconds(7_200), cancellationCutoff: .seconds(3_600))
        var ledger = try Fixture.ledger(policy)
        let day = try Fixture.date("2026-11-30")
        let now = Instant.utc(day, hour: 9)  // 12:00 in Istanbul (UTC+3)
        let tooSoon = try #require(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot("IST", "1", day, 13), user: 1), at: now) })
        #expect(tooSoon.reason == .tooSoon)
        #expect(tooSoon.timeZone == "Europe/Istanbul")
        #expect(tooSoon.message(in: .english).contains("2026-11-30 14:00 Europe/Istanbul (UTC+03:00)"))
        #expect(tooSoon.message(in: .turkish).contains("2026-11-30 14:00 Europe/Istanbul (UTC+03:00)"))
        #expect(!tooSoon.message(in: .english).contains("11:00"))

        let booking = try ledger.reserve(Fixture.request(Fixture.slot("IST", "1", day, 16), user: 1), at: now)
        let late = Instant.utc(day, hour: 12, minute: 30)  // 15:30 local; deadline 15:00 local
        let cutoff = try #require(refusal { try ledger.cancel(booking.id, by: 1, at: late) })
        #expect(cutoff.reason == .cancellationCutoffPassed)
        #expect(cutoff.message(in: .english).contains("2026-11-30 15:00 Europe/Istanbul (UTC+03:00)"))
        #expect(cutoff.message(in: .turkish).contains("2026-11-30 15:00 Europe/Istanbul (UTC+03:00)"))

        // London in winter is UTC+00:00; in summer UTC+01:00.
        let summer = try Fixture.day()
        let london = try #require(
            refusal {
                try ledger.reserve(Fixture.request(Fixture.slot(summer, 10), user: 2), at: Instant.utc(summer, hour: 8))
            })
        #expect(london.message(in: .english).contains("2018-06-10 11:00 Europe/London (UTC+01:00)"))
    }
}
