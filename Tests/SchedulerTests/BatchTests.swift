import SlotScheduler
import Testing

@Suite("Batched attempts give the same results as one attempt at a time")
struct BatchTests {
    /// Attempts over London's sockets on three days, a few users, so slots and limits collide,
    /// with a closed socket, restricted hours and hours in the past at `now`.
    static func attempts(_ catalog: Catalog, count: Int) throws -> [(SlotRef, UserID)] {
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: (state >> 33) % UInt64(bound))
        }
        let day = try Fixture.day()
        return try (0..<count).map { _ in
            let slot = Fixture.slot("LON", SocketID("\(1 + next(3))"), day.adding(days: next(3) - 1), next(24))
            return (try catalog.resolve(slot), UserID(UInt64(next(12) == 0 ? 5_000 + next(3) : next(40))))
        }
    }

    @Test func batchMatchesSingleAttempts() throws {
        var single = try Fixture.ledger()
        let day = try Fixture.day()
        let now = Instant.utc(day.adding(days: -1), hour: 12)
        try single.changeAvailability(.close("LON", socket: "2", on: day), at: now)
        try single.changeAvailability(.setHours(HourSet(6..<18), "LON", socket: "1", on: day), at: now)
        var batched = single
        let attempts = try Self.attempts(single.catalog, count: 500)
        let expected = attempts.map { single.attempt($0.0, for: $0.1, at: now) }
        // Uneven pieces, so windows start and end anywhere.
        var got: [ReservationAttempt] = []
        var start = 0
        for size in [1, 31, 32, 33, 100, 303] {
            got += batched.attempt(attempts[start..<(start + size)], at: now)
            start += size
        }
        #expect(start == attempts.count)
        #expect(got == expected)
        #expect(Set(expected.compactMap(\.reason)).count >= 4, "the workload exercises several refusals")
        #expect(batched.events == single.events)
        #expect(batched.activeBookingCount == single.activeBookingCount)
    }

    /// The scheduler decides a batch shard by shard, from the shard of the batch's first attempt
    /// on (wrapping around), in batch order within a shard: the same results as single attempts
    /// made in that order.
    @Test func schedulerBatchMatchesSingleAttemptsInShardOrder() throws {
        let stations: [(StationID, SocketID)] = [("LON", "1"), ("LON", "2"), ("LHR", "A"), ("IST", "1"), ("CKR", "1")]
        var state: UInt64 = 11
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: (state >> 33) % UInt64(bound))
        }
        let batched = try Fixture.scheduler(shards: 3)
        let single = try Fixture.scheduler(shards: 3)
        let day = try Fixture.day()
        let now = Instant.utc(day.adding(days: -1), hour: 12)
        var attempts = try (0..<400).map { _ in
            let (station, socket) = stations[next(stations.count)]
            let slot = Fixture.slot(station, socket, day.adding(days: next(2)), next(24))
            return (try batched.rules.catalog.resolve(slot), UserID(UInt64(next(25))))
        }
        // Led by an attempt outside shard 0, so that the order differs from plain shard order.
        let lead = try #require(attempts.firstIndex { $0.0.station % 3 != 0 })
        attempts.insert(attempts.remove(at: lead), at: 0)
        let got = batched.attempt(attempts[...], at: now)
        // The documented order: by shard (station index modulo 3) counted from the first
        // attempt's, stable.
        let first = Int(attempts[0].0.station) % 3
        func rank(_ i: Int) -> Int { (Int(attempts[i].0.station) % 3 - first + 3) % 3 }
        let order = attempts.indices.sorted { (rank($0), $0) < (rank($1), $1) }
        var expected = [ReservationAttempt?](repeating: nil, count: attempts.count)
        for i in order { expected[i] = single.attempt(attempts[i].0, for: attempts[i].1, at: now) }
        #expect(got == expected.compactMap { $0 })
        #expect(got.contains { $0.reason == .userLimitReached })
        #expect(got.contains { $0.reason == .slotTaken })
        #expect(batched.allBookings == single.allBookings)
    }
}
