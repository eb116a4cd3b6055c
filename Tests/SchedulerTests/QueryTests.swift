import SlotScheduler
import Testing

@Suite("Queries: day view, a user's bookings, earliest free slots")
struct QueryTests {
    /// One day view shows free, booked, closed, outside hours, past and too soon, each where expected.
    @Test func dayViewStatuses() throws {
        let last = try Fixture.date("2018-06-30")
        var ledger = try Fixture.ledger(
            Policy(maxUpcomingBookings: 3, horizon: .lastDate(last), minimumNotice: .seconds(7_200)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9, minute: 30)  // 10:30 BST
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 1), at: now)
        try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        let view = try ledger.dayView(of: "LON", on: day, at: now)
        #expect(view.station == "LON")
        #expect(view.date == day)
        #expect(view.sockets.map(\.socket) == ["1", "2", "3"])
        #expect(view.sockets.map(\.connector) == [.type2, .ccs, .chademo])
        let one = try #require(view.sockets.first)
        #expect(one.hours.count == 24)
        #expect(Array(one.hours[0...10]) == Array(repeating: .past, count: 11))  // 10:00 is under way
        #expect(one.hours[11] == .tooSoon)  // 10:00 UTC < 11:30 UTC
        #expect(one.hours[12] == .tooSoon)  // 11:00 UTC < 11:30 UTC
        #expect(one.hours[13] == .free)
        #expect(one.hours[15] == .booked)
        #expect(view.status(socket: "2", hour: 13) == .closed)
        #expect(view.status(socket: "2", hour: 5) == .past)  // time rules come first
        #expect(view.status(socket: "3", hour: 20) == .outsideHours)
        #expect(view.status(socket: "3", hour: 19) == .free)
        #expect(view.status(socket: "9", hour: 19) == nil)
        #expect(view.status(socket: "1", hour: 24) == nil)
        let beyond = try ledger.dayView(of: "LON", on: last.adding(days: 1), at: now)
        #expect(beyond.sockets.allSatisfy { $0.hours.allSatisfy { $0 == .beyondHorizon } })
        let dst = try ledger.dayView(of: "LON", on: try Fixture.date("2018-03-25"), at: now)
        #expect(dst.status(socket: "1", hour: 1) == .nonexistent)
        #expect(dst.status(socket: "1", hour: 2) == .past)
        #expect(refusal { try ledger.dayView(of: "NOPE", on: day, at: now) }?.reason == .unknownStation)
    }

    /// Every slot status maps to the refusal a reservation of that slot gets, and the reservation agrees.
    @Test func statusMatchesReservation() throws {
        var ledger = try Fixture.ledger(
            Policy(maxUpcomingBookings: 100, horizon: .rollingDays(30), minimumNotice: .seconds(3_600)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9, minute: 30)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 1), at: now)
        try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        #expect(SlotStatus.free.reason == nil)
        for date in [day, day.adding(days: 40), try Fixture.date("2018-03-25")] {
            for socket: SocketID in ["1", "2", "3"] {
                for hour in 0..<24 {
                    let slot = Fixture.slot("LON", socket, date, hour)
                    let status = try ledger.status(of: slot, at: now)
                    if let reason = status.reason {
                        #expect(
                            refusal { try ledger.reserve(Fixture.request(slot, user: 2), at: now) }?.reason == reason)
                    }
                }
            }
        }
        #expect(try ledger.status(of: Fixture.slot(day, 20), at: now) == .free)
    }

    /// A user's bookings are split at `now`: upcoming soonest first (one under way included), past most
    /// recent first, cancelled ones in neither.
    @Test func userBookingsSplit() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 10))
        let day = try Fixture.day()
        let early = try Fixture.earlyNow()
        let b8 = try ledger.reserve(Fixture.request(Fixture.slot(day, 8), user: 1), at: early)
        let b14 = try ledger.reserve(Fixture.request(Fixture.slot(day, 14), user: 1), at: early)
        let b9 = try ledger.reserve(Fixture.request(Fixture.slot(day, 9), user: 1), at: early)
        let b12 = try ledger.reserve(Fixture.request(Fixture.slot(day, 12), user: 1), at: early)
        let b11 = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: early)
        let cancelled = try ledger.reserve(Fixture.request(Fixture.slot(day, 16), user: 1), at: early)
        try ledger.cancel(cancelled.id, by: 1, at: early)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 13), user: 2), at: early)
        let now = Instant.utc(day, hour: 10, minute: 15)  // 11:15 BST: the 11:00 booking is under way
        let split = ledger.bookings(of: 1, at: now)
        #expect(split.upcoming.map(\.id) == [b11.id, b12.id, b14.id])
        #expect(split.past.map(\.id) == [b9.id, b8.id])
        #expect(ledger.bookings(of: 3, at: now) == UserBookings(bookings: [], at: now))
    }

    /// The scheduler splits a user's bookings the same way.
    @Test func schedulerUserBookings() throws {
        let scheduler = try Fixture.scheduler()
        let day = try Fixture.day()
        let early = try Fixture.earlyNow()
        let a = try scheduler.reserve(Fixture.request(Fixture.slot("IST", "1", day, 8), user: 1), at: early)
        let b = try scheduler.reserve(Fixture.request(Fixture.slot(day, 14), user: 1), at: early)
        let split = scheduler.bookings(of: 1, at: Instant.utc(day, hour: 12))
        #expect(split.upcoming.map(\.id) == [b.id])
        #expect(split.past.map(\.id) == [a.id])
    }

    /// Without filters every station reports its earliest free slot, earliest first, ties by station id.
    @Test func earliestFreeSlotsWithoutFilters() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9, minute: 30)  // 10:30 London, 12:30 Istanbul
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        let found = ledger.earliestFreeSlots(matching: SlotFilter(), at: now)
        #expect(found.map(\.slot.station) == ["CKR", "IST", "IZM", "LHR", "LON", "NOW"])
        // Istanbul 13:00 is 10:00 UTC, the same instant as London 11:00.
        #expect(found.allSatisfy { $0.start == Instant.utc(day, hour: 10) })
        // London socket 1 at 11:00 is taken, so socket 2 is the earliest free one.
        let london = try #require(found.first { $0.slot.station == "LON" })
        #expect(london.slot == Fixture.slot("LON", "2", day, 11))
        #expect(london.distanceKilometres == nil)
    }

    /// The search a store without books of its own runs (PostgreSQL), over its day views, finds
    /// what the scheduler's search over its books finds: on bookings, a closed socket and the
    /// horizon, for each filter, from several moments.
    @Test func earliestFreeSlotsFromDayViewsAreTheBooksAnswers() async throws {
        let last = try Fixture.date("2018-06-12")
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 40, horizon: .lastDate(last)))
        let day = try Fixture.day()
        let start = Instant.utc(day, hour: 9, minute: 30)
        for hour in 10...23 {
            _ = try? scheduler.reserve(Fixture.request(Fixture.slot(day, hour), user: UserID(UInt64(hour))), at: start)
        }
        try scheduler.changeAvailability(.close("LON", socket: "2", on: day), at: start)
        let filters = [
            SlotFilter(), SlotFilter(city: "london"), SlotFilter(connector: "ccs", limit: 1),
            SlotFilter(minimumPowerKW: 100, searchDays: 0),
            SlotFilter(near: Coordinate(latitude: 51.5, longitude: -0.1)),
        ]
        var found = 0
        for filter in filters {
            for now in [start, start + .seconds(86_400 * 3), start + .seconds(86_400 * 12)] {
                let books = scheduler.earliestFreeSlots(matching: filter, at: now)
                let views = try await scheduler.earliestFreeSlotsFromDayViews(matching: filter, at: now)
                #expect(views == books, "\(filter) at \(now)")
                found += books.count
            }
        }
        #expect(found > 0)
    }

    /// City, connector and minimum power filter the stations and sockets searched.
    @Test func earliestFreeSlotsFilters() throws {
        let ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9, minute: 30)
        #expect(
            ledger.earliestFreeSlots(matching: SlotFilter(city: "LONDON"), at: now).map(\.slot.station) == [
                "LHR", "LON",
            ])
        #expect(
            ledger.earliestFreeSlots(matching: SlotFilter(city: "istanbul"), at: now).map(\.slot.station) == ["IST"])
        let ccs = ledger.earliestFreeSlots(matching: SlotFilter(connector: "ccs"), at: now)
        #expect(ccs.map(\.slot.station) == ["CKR", "LHR", "LON"])
        #expect(ccs.first { $0.slot.station == "LON" }?.slot.socket == "2")
        let fast = ledger.earliestFreeSlots(matching: SlotFilter(minimumPowerKW: 100), at: now)
        #expect(fast.map(\.slot) == [Fixture.slot("LHR", "A", day, 11)])
        let combined = SlotFilter(city: "London", connector: .chademo, minimumPowerKW: 50)
        #expect(
            ledger.earliestFreeSlots(matching: combined, at: now).map(\.slot) == [Fixture.slot("LON", "3", day, 11)])
        #expect(ledger.earliestFreeSlots(matching: SlotFilter(limit: 2), at: now).count == 2)
    }

    /// A 64 KiB connector or city (normalizing or folding to a short one) finds what the short one
    /// finds, on a ledger and a scheduler; a 64 KiB one that does not finds nothing. The search
    /// normalizes and folds them once, not once per socket or station.
    @Test func longFilterTextsMatchAsNormalized() throws {
        let ledger = try Fixture.ledger()
        let scheduler = try Fixture.scheduler()
        let now = Instant.utc(try Fixture.day(), hour: 9, minute: 30)
        let connector = ConnectorType("CC" + String(repeating: "- _", count: 65_533 / 3) + "S")
        let city = "Lon" + String(repeating: "\u{0301}", count: 32_768) + "DON"
        #expect(connector.rawValue.utf8.count >= 65_533 && connector.normalized == "ccs")
        #expect(city.utf8.count >= 65_536 && TextFolding.fold(city) == "london")
        let cases: [(SlotFilter, SlotFilter, [StationID])] = [
            (SlotFilter(connector: connector), SlotFilter(connector: .ccs), ["CKR", "LHR", "LON"]),
            (
                SlotFilter(city: city, connector: connector), SlotFilter(city: "london", connector: .ccs),
                ["LHR", "LON"]
            ),
        ]
        for (long, short, stations) in cases {
            let expected = ledger.earliestFreeSlots(matching: short, at: now)
            #expect(expected.map(\.slot.station) == stations)
            #expect(ledger.earliestFreeSlots(matching: long, at: now) == expected)
            #expect(scheduler.earliestFreeSlots(matching: long, at: now) == expected)
        }
        let misses = [
            SlotFilter(connector: ConnectorType("CCS" + String(repeating: "x", count: 65_533))),
            SlotFilter(city: city + "x", connector: .ccs),
        ]
        for miss in misses {
            #expect(ledger.earliestFreeSlots(matching: miss, at: now).isEmpty)
            #expect(scheduler.earliestFreeSlots(matching: miss, at: now).isEmpty)
        }
    }

    /// With a location, results are nearest first with distances; stations without coordinates come last.
    @Test func earliestFreeSlotsNearestFirst() throws {
        let scheduler = try Fixture.scheduler()
        let now = Instant.utc(try Fixture.day(), hour: 9, minute: 30)
        let ankara = Coordinate(latitude: 39.93, longitude: 32.85)
        let found = scheduler.earliestFreeSlots(matching: SlotFilter(near: ankara), at: now)
        #expect(found.map(\.slot.station) == ["CKR", "IST", "IZM", "LON", "LHR", "NOW"])
        let distances = found.compactMap(\.distanceKilometres)
        #expect(distances.count == 5)
        #expect(distances == distances.sorted())
        #expect(found.last?.distanceKilometres == nil)
    }

    /// The search skips closed and booked days and stops at the horizon.
    @Test func earliestFreeSlotsSkipsClosedDaysAndStopsAtHorizon() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, horizon: .rollingDays(1)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 12)
        try ledger.changeAvailability(.close("LHR", socket: "A", on: day), at: now)
        let filter = SlotFilter(city: "london", minimumPowerKW: 100)
        #expect(
            ledger.earliestFreeSlots(matching: filter, at: now).map(\.slot) == [
                Fixture.slot("LHR", "A", day.adding(days: 1), 0)
            ])
        try ledger.changeAvailability(.close("LHR", socket: "A", on: day.adding(days: 1)), at: now)
        #expect(ledger.earliestFreeSlots(matching: filter, at: now).isEmpty)
    }
}
