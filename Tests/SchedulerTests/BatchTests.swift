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
}
