import SlotScheduler
import Testing

/// Small user ids find their state by direct index, other ids through a hash table that grows.
/// Both paths must apply the same limit, cancel and query rules.
@Suite("User ids: dense and sparse ids follow the same rules")
struct UserIDTests {
    /// Dense ids at both ends of the direct region, ids just past it, and sparse ids up to
    /// `UInt64.max`: enough of them that the hash table grows several times.
    static let users: [UserID] =
        [0, 1, 1023, 1024, 1025, 4096, 1 << 40, UInt64.max, UInt64.max - 1].map { UserID($0) }
        + (1...200).map { UserID(UInt64($0) &* 0x9E37_79B9_7F4A_7C15 | 1 << 63) }

    /// The `n`-th slot of the test: LON socket 1, one day after another.
    static func slot(_ n: Int) throws -> Slot {
        Fixture.slot(try Fixture.day().adding(days: n / 24), n % 24)
    }

    @Test func ledgerAppliesTheLimitToEveryKindOfID() throws {
        var ledger = try Fixture.ledger()
        let now = try Fixture.earlyNow()
        var next = 0
        var first: [UserID: BookingID] = [:]
        for user in Self.users {
            for k in 0..<3 {
                let booking = try ledger.reserve(Fixture.request(try Self.slot(next), user: user), at: now)
                if k == 0 { first[user] = booking.id }
                next += 1
            }
            let refused = refusal { try ledger.reserve(Fixture.request(try Self.slot(next), user: user), at: now) }
            #expect(refused?.reason == .userLimitReached, "user \(user)")
        }
        #expect(ledger.activeBookingCount == Self.users.count * 3)
        for user in Self.users {
            #expect(ledger.bookings(of: user, at: now).upcoming.count == 3, "user \(user)")
            try ledger.cancel(try #require(first[user]), by: user, at: now)
            _ = try ledger.reserve(Fixture.request(try Self.slot(next), user: user), at: now)
            next += 1
        }
        #expect(ledger.activeBookingCount == Self.users.count * 3)
    }

    @Test func schedulerAppliesTheLimitToEveryKindOfID() throws {
        let scheduler = try Fixture.scheduler()
        let now = try Fixture.earlyNow()
        var next = 0
        for user in Self.users {
            for _ in 0..<3 {
                _ = try scheduler.reserve(Fixture.request(try Self.slot(next), user: user), at: now)
                next += 1
            }
            let refused = refusal { try scheduler.reserve(Fixture.request(try Self.slot(next), user: user), at: now) }
            #expect(refused?.reason == .userLimitReached, "user \(user)")
        }
        for user in Self.users {
            let upcoming = scheduler.bookings(of: user, at: now).upcoming
            #expect(upcoming.count == 3, "user \(user)")
            #expect(upcoming.allSatisfy { $0.user == user })
        }
    }
}
