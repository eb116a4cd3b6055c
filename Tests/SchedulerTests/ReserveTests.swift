import SlotScheduler
import Testing

@Suite("Reserve: every rule of a reservation")
struct ReserveTests {
    /// An accepted reservation returns an active booking with the slot, user, start and creation time.
    @Test func acceptedBookingHasItsFields() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        let slot = Fixture.slot(day, 10)
        let booking = try ledger.reserve(Fixture.request(slot, user: 7), at: now)
        #expect(booking.slot == slot)
        #expect(booking.user == 7)
        #expect(booking.start == Instant.utc(day, hour: 9))  // 10:00 BST is 09:00 UTC
        #expect(booking.end == Instant.utc(day, hour: 10))
        #expect(booking.createdAt == now)
        #expect(booking.status == .active)
        #expect(booking.requestID == nil)
        #expect(booking.reminderAt == nil)
        #expect(ledger.booking(booking.id) == booking)
        #expect(ledger.allBookings == [booking])
    }

    /// An unknown station is refused with `unknownStation`, naming the station.
    @Test func unknownStation() throws {
        var ledger = try Fixture.ledger()
        let slot = Fixture.slot("NOPE", "1", try Fixture.day(), 10)
        let now = try Fixture.earlyNow()
        let r = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) })
        #expect(r.reason == .unknownStation)
        #expect(r.value == "NOPE")
        #expect(r.slot == slot)
    }

    /// A socket the station does not have is refused with `unknownSocket`, naming the socket.
    @Test func unknownSocket() throws {
        var ledger = try Fixture.ledger()
        let slot = Fixture.slot("LON", "9", try Fixture.day(), 10)
        let now = try Fixture.earlyNow()
        let r = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) })
        #expect(r.reason == .unknownSocket)
        #expect(r.value == "9")
        #expect(r.slot == slot)
    }

    /// Hours outside 0–23 are refused with `invalidHour`, naming the hour.
    @Test(arguments: [-1, 24, 99])
    func invalidHour(hour: Int) throws {
        var ledger = try Fixture.ledger()
        let slot = Fixture.slot(try Fixture.day(), hour)
        let now = try Fixture.earlyNow()
        let r = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) })
        #expect(r.reason == .invalidHour)
        #expect(r.value == String(hour))
    }

    /// A slot on an earlier date is refused with `slotInPast`, giving the slot's start.
    @Test func pastDate() throws {
        var ledger = try Fixture.ledger()
        let earlier = try Fixture.date("2018-05-31")
        let slot = Fixture.slot(earlier, 12)
        let now = try Fixture.earlyNow()
        let r = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) })
        #expect(r.reason == .slotInPast)
        #expect(r.slot == slot)
        #expect(r.user == 1)
        #expect(r.instant == Instant.utc(earlier, hour: 11))
    }

    /// An earlier hour of today is in the past; the hour already under way is too; the next one is not.
    @Test func earlierHourToday() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9, minute: 30)  // 10:30 BST
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 9), user: 1), at: now) }?.reason
                == .slotInPast)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now) }?.reason
                == .slotInPast)
        let next = try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now)
        #expect(next.start == Instant.utc(day, hour: 10))
    }

    /// A slot starting before `now` + minimum notice is refused with `tooSoon`, giving the earliest allowed start.
    @Test func tooSoon() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, minimumNotice: .seconds(7_200)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9)  // 10:00 BST
        let soon = Fixture.slot(day, 12)  // 11:00 UTC: one second short of two hours is not enough
        let r = try #require(refusal { try ledger.reserve(Fixture.request(soon, user: 1), at: now + .seconds(1)) })
        #expect(r.reason == .tooSoon)
        #expect(r.instant == now + .seconds(7_201))
        #expect(r.slot == soon)
        // Exactly the minimum notice is enough.
        let booking = try ledger.reserve(Fixture.request(soon, user: 1), at: now)
        #expect(booking.start == now + .seconds(7_200))
    }

    /// With a fixed last date, that date can be booked and the next one is refused with `beyondHorizon`.
    @Test func horizonLastDate() throws {
        let last = try Fixture.date("2018-06-30")
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, horizon: .lastDate(last)))
        let now = try Fixture.earlyNow()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(last, 23), user: 1), at: now)
        let after = Fixture.slot(last.adding(days: 1), 0)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(after, user: 1), at: now) })
        #expect(r.reason == .beyondHorizon)
        #expect(r.date == last)
        #expect(r.slot == after)
    }

    /// A rolling horizon counts days from the station's local date at `now`: today + N is the last date.
    @Test func horizonRollingDays() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, horizon: .rollingDays(7)))
        let today = try Fixture.date("2018-06-01")
        // 23:30 UTC on May 31 is already June 1 in London (BST): the local date is what counts.
        let now = Instant.utc(try Fixture.date("2018-05-31"), hour: 23, minute: 30)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(today.adding(days: 7), 23), user: 1), at: now)
        let r = try #require(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(today.adding(days: 8), 0), user: 1), at: now) })
        #expect(r.reason == .beyondHorizon)
        #expect(r.date == today.adding(days: 7))
    }

    /// A rolling horizon of 0 days allows today only.
    @Test func horizonTodayOnly() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 3, horizon: .rollingDays(0)))
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 6)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 20), user: 1), at: now)
        let r = refusal { try ledger.reserve(Fixture.request(Fixture.slot(day.adding(days: 1), 8), user: 1), at: now) }
        #expect(r?.reason == .beyondHorizon)
        #expect(r?.date == day)
    }

    /// A socket closed on a date is refused with `socketClosed`; the same socket the next day is open.
    @Test func socketClosed() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        try ledger.changeAvailability(.close("LON", socket: "1", on: day), at: now)
        let slot = Fixture.slot(day, 10)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) })
        #expect(r.reason == .socketClosed)
        #expect(r.slot == slot)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day.adding(days: 1), 10), user: 1), at: now)
        _ = try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 10), user: 1), at: now)
    }

    /// Hours outside a socket's regular hours, or outside hours set for a date, are `outsideOpeningHours`.
    @Test func outsideOpeningHours() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        // Socket 3 is open 08:00–20:00.
        let late = Fixture.slot("LON", "3", day, 20)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(late, user: 1), at: now) })
        #expect(r.reason == .outsideOpeningHours)
        #expect(r.slot == late)
        _ = try ledger.reserve(Fixture.request(Fixture.slot("LON", "3", day, 19), user: 1), at: now)
        // Socket 1 open only 12:00–14:00 on the day.
        try ledger.changeAvailability(.setHours(HourSet(12..<14), "LON", socket: "1", on: day), at: now)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 11), user: 1), at: now) }?.reason
                == .outsideOpeningHours)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 13), user: 1), at: now)
    }

    /// A slot someone holds is refused with `slotTaken`, for another user and for the holder alike.
    @Test func slotTaken() throws {
        var ledger = try Fixture.ledger()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let now = try Fixture.earlyNow()
        _ = try ledger.reserve(Fixture.request(slot, user: 1), at: now)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(slot, user: 2), at: now) })
        #expect(r == Rejection(.slotTaken, slot: slot, user: 2))
        #expect(refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) }?.reason == .slotTaken)
    }

    /// The fourth upcoming booking of a user with limit 3 is refused with `userLimitReached`, giving the limit.
    @Test func userLimit() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        for hour in 10..<13 { _ = try ledger.reserve(Fixture.request(Fixture.slot(day, hour), user: 5), at: now) }
        let r = try #require(refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 13), user: 5), at: now) })
        #expect(r.reason == .userLimitReached)
        #expect(r.limit == 3)
        #expect(r.user == 5)
        // Other users are not affected.
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 13), user: 6), at: now)
    }

    /// Bookings whose hour has ended do not count against the limit; one under way still does.
    @Test func pastBookingsDoNotCount() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        for hour in 10..<13 { _ = try ledger.reserve(Fixture.request(Fixture.slot(day, hour), user: 5), at: now) }
        // 10:30 BST: the 10:00 booking is under way, so still upcoming.
        let during = Instant.utc(day, hour: 9, minute: 30)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 5), at: during) }?.reason
                == .userLimitReached)
        // 11:00 BST: the 10:00 booking has ended, one place is free again, only one.
        let after = Instant.utc(day, hour: 10)
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 15), user: 5), at: after)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 16), user: 5), at: after) }?.reason
                == .userLimitReached)
    }

    /// A per-user override replaces the general limit for that user only, in both directions.
    @Test func perUserLimitOverride() throws {
        let policy = Policy(
            maxUpcomingBookings: 2, userLimits: [.init(user: 9, limit: 1), .init(user: 10, limit: 4)])
        var ledger = try Fixture.ledger(policy)
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 1), user: 9), at: now)
        let r = try #require(refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 2), user: 9), at: now) })
        #expect(r.reason == .userLimitReached)
        #expect(r.limit == 1)
        for hour in 3..<7 { _ = try ledger.reserve(Fixture.request(Fixture.slot(day, hour), user: 10), at: now) }
        #expect(refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 7), user: 10), at: now) }?.limit == 4)
        for hour in 8..<10 { _ = try ledger.reserve(Fixture.request(Fixture.slot(day, hour), user: 11), at: now) }
        #expect(refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 11), at: now) }?.limit == 2)
        #expect(ledger.policy.limit(for: 9) == 1)
        #expect(ledger.policy.limit(for: 11) == 2)
    }

    /// A limit of 0 refuses every reservation.
    @Test func zeroLimit() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 0))
        let slot = Fixture.slot(try Fixture.day(), 10)
        let now = try Fixture.earlyNow()
        let r = refusal { try ledger.reserve(Fixture.request(slot, user: 1), at: now) }
        #expect(r?.reason == .userLimitReached)
        #expect(r?.limit == 0)
    }

    /// A negative or absurdly long reminder offset is refused with `invalidReminder`, giving the offset.
    @Test(arguments: [Int64(-5), 31_622_401])
    func invalidReminder(seconds: Int64) throws {
        var ledger = try Fixture.ledger()
        let slot = Fixture.slot(try Fixture.day(), 10)
        let now = try Fixture.earlyNow()
        let r = try #require(
            refusal { try ledger.reserve(Fixture.request(slot, user: 1, reminder: .seconds(seconds)), at: now) })
        #expect(r.reason == .invalidReminder)
        #expect(r.value == String(seconds))
        #expect(ledger.allBookings.isEmpty)
    }

    /// A reminder whose moment has already passed is refused with `reminderInPast`, giving that moment.
    @Test func reminderInPast() throws {
        var ledger = try Fixture.ledger()
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9)  // 10:00 BST
        let slot = Fixture.slot(day, 12)  // starts 11:00 UTC
        let r = try #require(
            refusal { try ledger.reserve(Fixture.request(slot, user: 1, reminder: .seconds(3 * 3_600)), at: now) })
        #expect(r.reason == .reminderInPast)
        #expect(r.instant == Instant.utc(day, hour: 8))
        // A reminder exactly at `now` is still in time.
        let booking = try ledger.reserve(Fixture.request(slot, user: 1, reminder: .seconds(2 * 3_600)), at: now)
        #expect(booking.reminderAt == now)
        #expect(booking.reminderOffsetSeconds == 7_200)
    }

    /// The checks run in a fixed order: time rules before availability, availability before occupancy,
    /// occupancy before the user's limit.
    @Test func orderOfChecks() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 1))
        let day = try Fixture.day()
        let now = try Fixture.earlyNow()
        _ = try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now)
        try ledger.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        // Past and closed: past wins.
        let late = Instant.utc(day, hour: 23)
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 1), user: 2), at: late) }?.reason
                == .slotInPast)
        // Closed and user at limit: closed wins.
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot("LON", "2", day, 11), user: 1), at: now) }?.reason
                == .socketClosed)
        // Taken and user at limit: taken wins.
        #expect(
            refusal { try ledger.reserve(Fixture.request(Fixture.slot(day, 10), user: 1), at: now) }?.reason
                == .slotTaken)
        // Invalid reminder on a past slot: past wins.
        #expect(
            refusal {
                try ledger.reserve(Fixture.request(Fixture.slot(day, 1), user: 3, reminder: .seconds(-1)), at: late)
            }?.reason == .slotInPast)
    }

    /// The scheduler gives the same answers as the ledger for the same commands.
    @Test func schedulerAgreesWithLedger() throws {
        var ledger = try Fixture.ledger(Policy(maxUpcomingBookings: 2, minimumNotice: .seconds(3_600)))
        let scheduler = try Fixture.scheduler(Policy(maxUpcomingBookings: 2, minimumNotice: .seconds(3_600)), shards: 1)
        let day = try Fixture.day()
        let now = Instant.utc(day, hour: 9)
        let requests = [
            Fixture.request(Fixture.slot(day, 12), user: 1),
            Fixture.request(Fixture.slot(day, 12), user: 2),
            Fixture.request(Fixture.slot(day, 10), user: 2),
            Fixture.request(Fixture.slot(day, 11), user: 2),
            Fixture.request(Fixture.slot("LON", "3", day, 22), user: 2),
            Fixture.request(Fixture.slot(day, 13), user: 1),
            Fixture.request(Fixture.slot(day, 14), user: 1),
            Fixture.request(Fixture.slot("IST", "1", day, 14), user: 3),
        ]
        for request in requests {
            let a = Result { () throws(Rejection) in try ledger.reserve(request, at: now) }
            let b = Result { () throws(Rejection) in try scheduler.reserve(request, at: now) }
            #expect(a == b)
        }
        #expect(ledger.snapshot() == scheduler.snapshot())
    }
}
