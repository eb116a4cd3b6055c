import SlotScheduler
import Testing

@Suite("DST: skipped and repeated local hours in Europe/London")
struct DSTTests {
    /// On 2018-03-25 the clocks go from 01:00 GMT to 02:00 BST: local hour 1 does not exist.
    @Test func springForwardSkippedHourIsRefused() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.date("2018-03-25")
        let now = Instant.utc(try Fixture.date("2018-03-20"), hour: 12)
        let skipped = Fixture.slot(day, 1)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(skipped, user: 1), at: now) })
        #expect(r.reason == .nonexistentLocalTime)
        #expect(r.slot == skipped)
        #expect(r.value == "1")
        #expect(ledger.allBookings.isEmpty)
        let ref = try ledger.catalog.resolve(skipped)
        #expect(ledger.catalog.start(of: ref) == nil)
    }

    /// On 2018-03-25 hour 0 starts at 00:00 UTC (GMT) and hour 2 at 01:00 UTC (BST).
    @Test func springForwardNeighbourHours() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.date("2018-03-25")
        let now = Instant.utc(try Fixture.date("2018-03-20"), hour: 12)
        let midnight = try ledger.reserve(Fixture.request(Fixture.slot(day, 0), user: 1), at: now)
        let two = try ledger.reserve(Fixture.request(Fixture.slot(day, 2), user: 1), at: now)
        #expect(midnight.start == Instant.utc(day, hour: 0))
        #expect(two.start == Instant.utc(day, hour: 1))
        #expect(midnight.end == two.start)
        #expect(two.start.description == "2018-03-25T01:00:00Z")
    }

    /// The day view of 2018-03-25 shows hour 1 as nonexistent and the other hours as free.
    @Test func springForwardDayView() throws {
        let ledger = try Fixture.ledger()
        let day = try Fixture.date("2018-03-25")
        let view = try ledger.dayView(of: "LON", on: day, at: Instant.utc(try Fixture.date("2018-03-20"), hour: 12))
        #expect(view.status(socket: "1", hour: 1) == .nonexistent)
        #expect(view.status(socket: "1", hour: 0) == .free)
        #expect(view.status(socket: "1", hour: 2) == .free)
        #expect(view.sockets.allSatisfy { $0.hours.count == 24 && $0.hours[1] == .nonexistent })
    }

    /// On 2018-10-28 local hour 1 happens twice; the slot means the first occurrence, 00:00 UTC (BST).
    @Test func fallBackRepeatedHourMeansFirstOccurrence() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.date("2018-10-28")
        let now = Instant.utc(try Fixture.date("2018-10-20"), hour: 12)
        let one = try ledger.reserve(Fixture.request(Fixture.slot(day, 1), user: 1), at: now)
        #expect(one.start == Instant.utc(day, hour: 0))
        #expect(one.start.description == "2018-10-28T00:00:00Z")
        let zero = try ledger.reserve(Fixture.request(Fixture.slot(day, 0), user: 1), at: now)
        #expect(zero.start == Instant.utc(day.adding(days: -1), hour: 23))
    }

    /// On 2018-10-28 hour 2 is 02:00 GMT, which is 02:00 UTC.
    @Test func fallBackHourTwo() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.date("2018-10-28")
        let now = Instant.utc(try Fixture.date("2018-10-20"), hour: 12)
        let two = try ledger.reserve(Fixture.request(Fixture.slot(day, 2), user: 1), at: now)
        #expect(two.start == Instant.utc(day, hour: 2))
        #expect(two.start.description == "2018-10-28T02:00:00Z")
    }

    /// During the second 01:00–02:00 (01:30 GMT = 01:30 UTC) the repeated hour's slot is already past.
    @Test func fallBackSecondOccurrenceIsNotBookable() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.date("2018-10-28")
        // 00:30 UTC is 01:30 BST, during the first occurrence: the slot is under way, so past.
        let during = Instant.utc(day, hour: 0, minute: 30)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 1), user: 1), at: during) }?.reason
                == .slotInPast)
        // Just before the first occurrence it can be booked.
        let before = Instant.utc(day.adding(days: -1), hour: 23, minute: 59)
        let booking = try ledger.reserve(Fixture.request(Fixture.slot(day, 1), user: 1), at: before)
        #expect(booking.start == Instant.utc(day, hour: 0))
        let view = try ledger.dayView(of: "LON", on: day, at: Instant.utc(day, hour: 1, minute: 30))
        #expect(view.status(socket: "1", hour: 1) == .past)
        #expect(view.status(socket: "1", hour: 2) == .free)
    }

    /// The scheduler applies the same DST rule as the ledger.
    @Test func schedulerUsesTheSameRule() throws {
        let scheduler = try Fixture.scheduler()
        let spring = try Fixture.date("2018-03-25")
        let autumn = try Fixture.date("2018-10-28")
        let now = Instant.utc(try Fixture.date("2018-03-01"), hour: 12)
        #expect(
            refusal { try scheduler.reserve(Fixture.request(Fixture.slot(spring, 1), user: 1), at: now) }?.reason
                == .nonexistentLocalTime)
        #expect(
            try scheduler.reserve(Fixture.request(Fixture.slot(spring, 2), user: 1), at: now).start
                == Instant.utc(spring, hour: 1))
        #expect(
            try scheduler.reserve(Fixture.request(Fixture.slot(autumn, 1), user: 1), at: now).start
                == Instant.utc(autumn, hour: 0))
        #expect(
            try scheduler.reserve(Fixture.request(Fixture.slot(autumn, 2), user: 1), at: now).start
                == Instant.utc(autumn, hour: 2))
    }

    /// The station's local date follows DST: 23:30 UTC on 2018-06-09 is already 2018-06-10 in London.
    @Test func localDateFollowsOffset() throws {
        let catalog = try Catalog(Fixture.stations)
        let now = Instant.utc(try Fixture.date("2018-06-09"), hour: 23, minute: 30)
        #expect(catalog.localDate(of: "LON", at: now) == (try Fixture.date("2018-06-10")))
        let winter = Instant.utc(try Fixture.date("2018-01-09"), hour: 23, minute: 30)
        #expect(catalog.localDate(of: "LON", at: winter) == (try Fixture.date("2018-01-09")))
        #expect(catalog.localDate(of: "IST", at: winter) == (try Fixture.date("2018-01-10")))
        #expect(catalog.localDate(of: "NOPE", at: winter) == nil)
    }
}
