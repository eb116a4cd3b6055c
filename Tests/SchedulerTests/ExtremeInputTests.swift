import Foundation
import SlotScheduler
import Testing

/// Regression tests for issue 11: inputs that crashed the process or were stored without bound.
@Suite struct ExtremeInputTests {
    /// `GET /stations?page=9223372036854775807&pageSize=2` trapped on `page * pageSize`.
    @Test(arguments: [(Int.max, 2), (1 << 62, 2), (Int.max / 500 + 1, 500), (Int.max, 1)])
    func searchFarPastTheEndIsAnEmptyPage(page: Int, pageSize: Int) throws {
        let catalog = try Catalog(Fixture.stations)
        let result = try catalog.search(StationQuery(page: page, pageSize: pageSize))
        #expect(result.stations.isEmpty)
        #expect(result.totalCount == Fixture.stations.count)
        #expect(!result.hasMore)
    }

    /// The last page still reports the right `hasMore`, with the overflow-safe arithmetic.
    @Test func hasMoreAtTheEnd() throws {
        let catalog = try Catalog(Fixture.stations)
        #expect(try catalog.search(StationQuery(page: 0, pageSize: 5)).hasMore)
        #expect(try !catalog.search(StationQuery(page: 1, pageSize: 5)).hasMore)
        #expect(try !catalog.search(StationQuery(page: 0, pageSize: 6)).hasMore)
    }

    /// A 1 MB request id was accepted and kept forever; it is refused before anything is stored.
    @Test func megabyteRequestIDIsRefusedAndNotStored() throws {
        let huge = RequestID(String(repeating: "x", count: 1 << 20))
        var ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let request = ReservationRequest(
            slot: Slot(station: "LON", socket: "1", date: try Fixture.day(), hour: 12), user: 1, requestID: huge)
        let now = try Fixture.earlyNow()
        #expect(refusal { try ledger.reserve(request, at: now) }?.reason == .invalidRequestID)
        let error = try #require(refusal { try scheduler.reserve(request, at: now) })
        #expect(error.reason == .invalidRequestID)
        #expect((error.value?.utf8.count ?? 0) < 200, "the refusal echoes a shortened id")
        #expect(error.message(in: .english).utf8.count < 400)
        #expect(ledger.allBookings.isEmpty)
        #expect(scheduler.allBookings.isEmpty)
        #expect(ledger.events.isEmpty)
    }

    /// The id rule: 1...128 UTF-8 bytes, no surrounding whitespace, no control characters.
    @Test func identifierRule() {
        for valid in ["r1", "IST 1", "İstanbul-7", String(repeating: "é", count: 64), "👩‍👩‍👧‍👦"] {
            #expect(IdentifierRule.isValid(valid), "\(valid.debugDescription)")
        }
        for invalid in [
            "", " r1", "r1 ", "\tr1", "r1\n", "r\u{0}1", "r\u{7F}", "r\u{85}", "\u{A0}r",
            String(repeating: "x", count: 129),
            String(repeating: "é", count: 65),
        ] {
            #expect(!IdentifierRule.isValid(invalid), "\(invalid.debugDescription)")
        }
        #expect(IdentifierRule.shortened(String(repeating: "x", count: 1 << 20)).utf8.count < 160)
    }

    /// Station and socket ids with surrounding whitespace were accepted by `Catalog`.
    @Test(arguments: [" IST-1 ", "IST-1 ", "\u{0}", ""])
    func catalogRefusesStationIDsThatBreakTheRule(id: String) {
        var station = Fixture.istanbul
        station.id = StationID(id)
        #expect(invalidValue { try Catalog([station]) }?.field == "stations[0].id")
        var socketStation = Fixture.istanbul
        socketStation.sockets[0].id = SocketID(id)
        #expect(invalidValue { try Catalog([socketStation]) }?.field == "stations[0].sockets[0].id")
    }

    /// A date far past the supported years was bookable with an unlimited horizon, and made a
    /// book span millions of days; it is refused, as is an availability change on it.
    @Test func datesOutsideTheSupportedRangeAreRefused() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, horizon: .unlimited))
        let far = LocalDate(dayNumber: Int32.max)
        let now = try Fixture.earlyNow()
        let request = ReservationRequest(slot: Fixture.slot(far, 1), user: 1)
        #expect(refusal { try ledger.reserve(request, at: now) }?.reason == .unsupportedDate)
        #expect(
            refusal { try ledger.changeAvailability(.close("LON", socket: nil, on: far), at: now) }?.reason
                == .unsupportedDate)
        #expect(refusal { try ledger.dayView(of: "LON", on: far, at: now) }?.reason == .unsupportedDate)
        #expect(ledger.allBookings.isEmpty)
    }

    /// `adding(days:)` truncated `days` to 32 bits: `1 << 32` days later was the same date, and
    /// `-Int.max` days (a journal's `retainDays: .max`) the next day. It stops at the ends.
    @Test func addingDaysDoesNotWrap() throws {
        let day = try Fixture.day()
        #expect(day.adding(days: 1 << 32) == LocalDate(dayNumber: .max))
        #expect(day.adding(days: -Int.max) == LocalDate(dayNumber: .min))
        #expect(day.adding(days: .min) == LocalDate(dayNumber: .min))
        #expect(day.adding(days: .max) == LocalDate(dayNumber: .max))
        #expect(LocalDate(dayNumber: .max).adding(days: 1) == LocalDate(dayNumber: .max))
        #expect(LocalDate(dayNumber: .min).adding(days: -1) == LocalDate(dayNumber: .min))
        #expect(day.adding(days: -3).adding(days: 3) == day)
    }

    /// Instants and counts at the ends of `Int64` and `Int` trapped in arithmetic.
    @Test func extremeNumbersDoNotTrap() throws {
        #expect(Instant(secondsSinceEpoch: .max).description.hasSuffix("Z"))
        #expect(Instant(secondsSinceEpoch: .min).description.hasSuffix("Z"))
        #expect(Instant(secondsSinceEpoch: -1).description == "1969-12-31T23:59:59Z")
        #expect(Instant.utc(try Fixture.day(), hour: .max).secondsSinceEpoch == .max)
        #expect(Instant.utc(try Fixture.day(), hour: .min) < Instant.utc(try Fixture.day(), hour: 0))
        let rules = try Rules(catalog: try Catalog(Fixture.stations), policy: Policy(cancellationCutoff: .seconds(60)))
        #expect(!rules.canCancel(start: Instant(secondsSinceEpoch: .min), at: Instant(secondsSinceEpoch: .min)))
        #expect(rules.lastBookableDate(station: .max, at: try Fixture.earlyNow()) == nil)
        let booking = Booking(
            id: BookingID(1), slot: Slot(station: "LON", socket: "1", date: try Fixture.day(), hour: 1), user: 1,
            start: Instant(secondsSinceEpoch: .max), createdAt: Instant(secondsSinceEpoch: 0),
            reminderOffsetSeconds: .min)
        #expect(booking.end.secondsSinceEpoch == .max)
        #expect(booking.reminderAt?.secondsSinceEpoch == .max)
        let ledger = try Fixture.ledger()
        #expect(ledger.events(since: .min).isEmpty)
        let scheduler = Scheduler(
            rules: rules, shards: .min, userStripes: .max, expectedUsers: .max, expectedBookings: .min)
        #expect(scheduler.shardCount == 1)
    }
}
