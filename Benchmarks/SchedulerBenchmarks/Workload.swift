import SlotScheduler

/// A seeded SplitMix64: the benchmark's only source of randomness.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The benchmark workload (docs/performance/README.md): 200 stations × 10 sockets × 275 days × 24 h,
/// 1 M users, limit 16, uniform random attempts (≈30 % conflicts over 10 M attempts), ≈1 %
/// of socket-days closed.
struct Workload: Sendable {
    static let stationCount = 200
    static let socketsPerStation = 10
    static let days = 275
    static let users: UInt64 = 1_000_000
    static let limit = 16

    let rules: Rules
    let firstDay: LocalDate
    let now: Instant
    let closures: [AvailabilityChange]
    let attempts: [(SlotRef, UserID)]

    init(attempts count: Int, seed: UInt64 = 42) throws {
        let stations = (0..<Self.stationCount).map { s in
            Station(
                id: StationID("ST-\(s)"), name: "Station \(s)", city: "City \(s % 20)", timeZone: "Europe/London",
                sockets: (0..<Self.socketsPerStation).map {
                    Socket(id: SocketID("\($0)"), connector: $0 % 2 == 0 ? .type2 : .ccs, powerKW: 22)
                })
        }
        firstDay = try LocalDate(year: 2026, month: 1, day: 1)
        let lastDay = firstDay.adding(days: Self.days - 1)
        rules = try Rules(
            catalog: try Catalog(stations),
            policy: Policy(maxUpcomingBookings: Self.limit, horizon: .lastDate(lastDay)))
        now = Instant.utc(firstDay.adding(days: -1), hour: 0)
        var rng = SplitMix64(seed: seed)
        var closures: [AvailabilityChange] = []
        for s in 0..<Self.stationCount {
            for k in 0..<Self.socketsPerStation {
                for d in 0..<Self.days where rng.next() % 100 == 0 {
                    closures.append(
                        .close(StationID("ST-\(s)"), socket: SocketID("\(k)"), on: firstDay.adding(days: d)))
                }
            }
        }
        self.closures = closures
        var attempts: [(SlotRef, UserID)] = []
        attempts.reserveCapacity(count)
        for _ in 0..<count {
            let slot = Slot(
                station: StationID("ST-\(Int(rng.next() % UInt64(Self.stationCount)))"),
                socket: SocketID("\(Int(rng.next() % UInt64(Self.socketsPerStation)))"),
                date: firstDay.adding(days: Int(rng.next() % UInt64(Self.days))), hour: Int(rng.next() % 24))
            attempts.append((try rules.catalog.resolve(slot), UserID(rng.next() % Self.users)))
        }
        self.attempts = attempts
    }

    /// A ledger with the closures applied.
    func makeLedger(journaling: Bool = true) throws -> Ledger {
        var ledger = Ledger(
            rules: rules, journaling: journaling, expectedUsers: Int(Self.users), expectedBookings: 8_000_000)
        for change in closures { try ledger.changeAvailability(change, at: now) }
        return ledger
    }

    /// A scheduler with the closures applied.
    func makeScheduler(shards: Int = 64, stripes: Int = 256) throws -> Scheduler {
        let scheduler = Scheduler(
            rules: rules, shards: shards, userStripes: stripes, expectedUsers: Int(Self.users),
            expectedBookings: 8_000_000)
        for change in closures { try scheduler.changeAvailability(change, at: now) }
        return scheduler
    }
}

extension Workload {
    /// The standard attempts split for two threads that share no state: list *t* holds the
    /// attempts on stations of parity *t*, each by a user of parity *t* (a user id of the other
    /// parity is replaced by its neighbour, `id ^ 1`). With an even shard count and a power of
    /// two stripes (``makeScheduler(shards:)``), the station's shard and the user's stripe have
    /// the list's parity: the two threads never take the same lock.
    var disjointAttempts: [[(SlotRef, UserID)]] {
        var lists: [[(SlotRef, UserID)]] = [[], []]
        for (ref, user) in attempts {
            let parity = UInt64(ref.station) & 1
            lists[Int(parity)].append((ref, UserID(user.rawValue & ~1 | parity)))
        }
        return lists
    }
}
