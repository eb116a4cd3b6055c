import SlotScheduler
import Testing

/// The per-user limit when a user's ended bookings leave the check's working set, and when a
/// call's `now` is earlier than an earlier call's (callers' clocks differ).
@Suite struct LimitHistoryTests {
    /// A reservation through a ledger or a scheduler.
    typealias Reserve = (ReservationRequest, Instant) throws(Rejection) -> Booking

    static func faces(_ policy: Policy) throws -> [(String, Reserve)] {
        var ledger = try Fixture.ledger(policy)
        let scheduler = try Fixture.scheduler(policy, shards: 2)
        return [
            ("ledger", { (request, now) throws(Rejection) in try ledger.reserve(request, at: now) }),
            ("scheduler", { (request, now) throws(Rejection) in try scheduler.reserve(request, at: now) }),
        ]
    }

    /// Bookings a later check saw ended count again for a check whose `now` is before their end.
    @Test(arguments: ["ledger", "scheduler"])
    func endedBookingsCountAgainWhenNowGoesBack(face: String) throws {
        let reserve = try #require(Self.faces(Policy(maxUpcomingBookings: 2)).first { $0.0 == face }?.1)
        let day = try Fixture.day()
        let early = try Fixture.earlyNow()
        let at = { (hour: Int) in Instant.utc(day, hour: hour - 1) }  // local hour `hour` (BST)
        _ = try reserve(Fixture.request(Fixture.slot(day, 10), user: 1), early)
        _ = try reserve(Fixture.request(Fixture.slot(day, 11), user: 1), early)
        // At 12:00 both have ended: the check walks them out of the live list.
        _ = try reserve(Fixture.request(Fixture.slot(day, 13), user: 1), at(12))
        // Earlier again: 10:00, 11:00 and 13:00 are all upcoming.
        let refused = refusal { try reserve(Fixture.request(Fixture.slot(day, 14), user: 1), early) }
        #expect(refused?.reason == .userLimitReached)
        // At 11:30 only 11:00 and 13:00 are.
        let halfPast = Instant(secondsSinceEpoch: at(11).secondsSinceEpoch + 1_800)
        #expect(
            refusal { try reserve(Fixture.request(Fixture.slot(day, 14), user: 1), halfPast) }?.reason
                == .userLimitReached)
        // At 12:00 again, only 13:00 is.
        #expect(try reserve(Fixture.request(Fixture.slot(day, 14), user: 1), at(12)).slot.hour == 14)
    }

    /// Random reservations and cancels at `now`s that go back and forth agree with a count of
    /// the user's active bookings that have not ended, on the ledger and the scheduler.
    @Test(arguments: 0..<12)
    func limitMatchesCountUnderShuffledClocks(seed: UInt64) throws {
        let limit = 3
        let policy = Policy(maxUpcomingBookings: limit, cancellationCutoff: .zero)
        var ledger = try Fixture.ledger(policy)
        let scheduler = try Fixture.scheduler(policy, shards: 2)
        var rng = TestRandom(seed: seed)
        let day = try Fixture.day()
        let base = Instant.utc(day, hour: 0).secondsSinceEpoch
        var active: [Booking] = []
        for step in 0..<400 {
            let now = Instant(secondsSinceEpoch: base + Int64(rng.next(below: 48)) * 1_800 - 3_600)
            let user = UserID(rng.next(below: 3))
            if rng.next(below: 5) == 0, !active.isEmpty {
                let victim = active[Int(rng.next(below: UInt64(active.count)))]
                let fromLedger = refusal { try ledger.cancel(victim.id, by: victim.user, at: now) }
                let fromScheduler = refusal { try scheduler.cancel(victim.id, by: victim.user, at: now) }
                #expect(fromLedger?.reason == fromScheduler?.reason, "step \(step)")
                if fromLedger == nil { active.removeAll { $0.id == victim.id } }
                continue
            }
            let hour = Int(rng.next(below: 24))
            let slot = Slot(station: "LON", socket: rng.next(below: 2) == 0 ? "1" : "2", date: day, hour: hour)
            let start = Instant.utc(day, hour: hour - 1)  // BST
            let expected: Rejection.Reason? =
                if start < now {
                    .slotInPast
                } else if active.contains(where: { $0.slot == slot }) {
                    .slotTaken
                } else if active.count(where: { $0.user == user && $0.isUpcoming(at: now) }) >= limit {
                    .userLimitReached
                } else {
                    nil
                }
            let request = ReservationRequest(slot: slot, user: user)
            var made: Booking?
            let fromLedger = refusal { made = try ledger.reserve(request, at: now) }
            let fromScheduler = refusal { try scheduler.reserve(request, at: now) }
            #expect(fromLedger?.reason == expected, "step \(step): \(slot) by \(user) at \(now)")
            #expect(fromScheduler?.reason == expected, "step \(step): \(slot) by \(user) at \(now)")
            if let made { active.append(made) }
        }
        #expect(ledger.snapshot().bookings.count == scheduler.snapshot().bookings.count)
    }
}

/// A seeded SplitMix64 for the randomized tests.
struct TestRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x2545_F491_4F6C_DD1D &+ 1 }
    mutating func next(below bound: UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return (z ^ (z >> 31)) % bound
    }
}
