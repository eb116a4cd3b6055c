import Testing

@testable import SlotScheduler

/// Retention with an unlimited horizon: a booking (or a hold) made on the first day for a date
/// years ahead must not keep every record made after it in memory, and what a release frees
/// behind it must still answer as released, while what it keeps answers as it is.
@Suite("Retention behind a booking far ahead")
struct RetentionFarAheadTests {
    static let days = 400
    static let perDay = 40

    static func rules() throws -> Rules {
        try Rules(
            catalog: try Catalog([Fixture.london, Fixture.heathrow]),
            policy: Policy(maxUpcomingBookings: 10_000, hold: .seconds(600), maxHoldsPerUser: 100))
    }

    static func start() throws -> LocalDate { try LocalDate(parsing: "2018-06-01") }

    /// One day's bookings: `perDay` on sockets 1 and 2 of LON over the next 30 dates (so every
    /// chunk of records holds some for dates up to a month after it filled), every fourth with a
    /// request id; and 24 holds on LHR for the next day.
    static func requests(day d: Int) throws -> (bookings: [ReservationRequest], holds: [Slot]) {
        let first = try start()
        let bookings = (0..<perDay).map { k in
            let slot = Slot(
                station: "LON", socket: k % 2 == 0 ? "1" : "2", date: first.adding(days: d + 1 + k % 30),
                hour: (k / 2 + d) % 24)
            return Fixture.request(slot, user: UserID(UInt64(k % 50)), id: k % 4 == 0 ? RequestID("r\(d)-\(k)") : nil)
        }
        let holds = (0..<24).map { k in Slot(station: "LHR", socket: "A", date: first.adding(days: d + 1), hour: k) }
        return (bookings, holds)
    }

    @Test func aBookingFarAheadKeepsOnlyItsOwnChunk() throws {
        let rules = try Self.rules()
        var ledger = Ledger(rules: rules)
        let scheduler = Scheduler(rules: rules, shards: 2)
        let first = try Self.start()
        let noon = { (d: Int) in Instant.utc(first.adding(days: d), hour: 12) }
        let far = Fixture.request(Slot(station: "LON", socket: "1", date: first.adding(days: 1_000), hour: 9), user: 99)
        let farBooking = try ledger.reserve(far, at: noon(0))
        let farOnScheduler = try scheduler.reserve(far, at: noon(0))
        let farHold = Slot(station: "LHR", socket: "A", date: first.adding(days: 1_000), hour: 9)
        _ = try ledger.hold(farHold, for: 98, at: noon(0))
        _ = try scheduler.hold(farHold, for: 98, at: noon(0))
        var made: [(ledger: Booking, scheduler: Booking)] = []
        for d in 0..<Self.days {
            let (bookings, holds) = try Self.requests(day: d)
            for request in bookings {
                let a = Result { () throws(Rejection) in try ledger.reserve(request, at: noon(d)) }
                let b = Result { () throws(Rejection) in try scheduler.reserve(request, at: noon(d)) }
                #expect(a.map { $0.slot } == b.map { $0.slot })
                if case .success(let x) = a, case .success(let y) = b { made.append((x, y)) }
            }
            for (k, slot) in holds.enumerated() {
                _ = try? ledger.hold(slot, for: UserID(UInt64(k)), at: noon(d))
                _ = try? scheduler.hold(slot, for: UserID(UInt64(k)), at: noon(d))
            }
            try ledger.releaseDays(before: first.adding(days: d - 1), at: noon(d))
            try scheduler.releaseDays(before: first.adding(days: d - 1), at: noon(d))
        }
        let chunk = RecordColumn<BookingRecord>.chunkSize
        // Before chunks behind the first held record were freed: 12,179 records, 9,600 holds.
        #expect(ledger.slots.records.storedCount < 2 * chunk + Self.perDay * 32)
        #expect(ledger.slots.holds.storedCount < 2 * chunk)
        for shard in 0..<scheduler.shardCount {
            #expect(scheduler.shards.withLock(shard) { $0.records.storedCount } < 2 * chunk + Self.perDay * 32)
        }
        // Released request ids are forgotten, those behind the far booking too.
        #expect(ledger.users.requests.count <= Self.perDay / 4 * 31)
        // Every booking answers as released or as it is.
        let cutoff = first.adding(days: Self.days - 2)
        for (a, b) in made {
            let expected: BookingLookup = a.slot.date < cutoff ? .released : .booking(a)
            #expect(ledger.lookup(a.id) == expected)
            let onScheduler: BookingLookup = b.slot.date < cutoff ? .released : .booking(b)
            #expect(scheduler.lookup(b.id) == onScheduler)
        }
        #expect(ledger.lookup(farBooking.id) == .booking(farBooking))
        #expect(scheduler.lookup(farOnScheduler.id) == .booking(farOnScheduler))
        #expect(ledger.slots.currentHolds(catalog: rules.catalog).map(\.slot).contains(farHold))
        // Snapshots restore to the same state, and the far booking can still be cancelled.
        let snapshot = ledger.snapshot()
        #expect(try Ledger(rules: rules, snapshot: snapshot).snapshot() == snapshot)
        let schedulerSnapshot = scheduler.snapshot()
        #expect(try Scheduler(rules: rules, shards: 2, snapshot: schedulerSnapshot).snapshot() == schedulerSnapshot)
        #expect(try ledger.cancel(farBooking.id, by: 99, at: noon(Self.days)).status == .cancelled)
        #expect(try scheduler.cancel(farOnScheduler.id, by: 99, at: noon(Self.days)).status == .cancelled)
    }

    /// Cost grows with the work: a release hands the users' books the bookings and holds of the
    /// days it takes, never again those of an earlier release that a hold far ahead keeps stored.
    @Test func aReleaseReturnsOnlyWhatItTakes() throws {
        let rules = try Self.rules()
        var ledger = Ledger(rules: rules)
        let first = try Self.start()
        let noon = { (d: Int) in Instant.utc(first.adding(days: d), hour: 12) }
        let farHold = Slot(station: "LHR", socket: "A", date: first.adding(days: 1_000), hour: 9)
        _ = try ledger.hold(farHold, for: 98, at: noon(0))
        var returned: [BookingID: Int] = [:]
        var total = 0
        for d in 0..<40 {
            let (bookings, holds) = try Self.requests(day: d)
            for request in bookings.prefix(4) { _ = try? ledger.reserve(request, at: noon(d)) }
            for (k, slot) in holds.enumerated() { _ = try? ledger.hold(slot, for: UserID(UInt64(k)), at: noon(d)) }
            let before = first.adding(days: d - 1)
            // What the release below returns to the users' books, seen on a copy of the slots.
            var copy = ledger.slots
            for entry in copy.releaseDays(before: before.dayNumber).active {
                returned[entry.booking, default: 0] += 1
                total += 1
            }
            try ledger.releaseDays(before: before, at: noon(d))
        }
        let twice = returned.filter { $0.value > 1 }.count
        #expect(twice == 0, "\(twice) of \(returned.count) bookings and holds were returned by more than one release")
        #expect(total == returned.count)
        #expect(total >= 24 * 38)
    }
}
