import SlotScheduler

/// One workload operation as both modes draw it (``WorkloadDraw/next(_:pools:)``).
enum DrawnOperation {
    case reserve(cell: Int32, user: UInt64)
    /// Cancel `booking` (of `owner`) by `user`: its owner, or, 1 in 8, someone else, who must be refused.
    case cancel(booking: UInt64, owner: UInt64, by: UInt64)
    /// A cancel that found no booking to aim at.
    case nothingToCancel(user: UInt64)
    case query(cell: Int32, user: UInt64)
    case change(AvailabilityChange, DisplacementRule, user: UInt64)
    /// A reservation with a request id: an earlier accepted one's again (at its cell, or 1 in 4 at
    /// another, which must be refused), or, with `earlier` `nil`, a fresh id the mode names.
    case retry(cell: Int32, user: UInt64, earlier: DrawPools.Request?)
    case hold(cell: Int32, user: UInt64)
    /// A confirm or release of a recent hold, by its holder or, 1 in 8, someone else (or of a
    /// cell nobody held, when there are none).
    case confirm(cell: Int32, user: UInt64)
    case releaseHold(cell: Int32, user: UInt64)
    /// A move of `booking` (of `owner`) to `cell`, another hour of its socket-day, by `user`.
    case reschedule(booking: UInt64, owner: UInt64, to: Int32, by: UInt64)
    /// A reschedule that found no booking to move.
    case nothingToMove(user: UInt64)
    case anySocket(AnySocketRequest, cell: Int32)
    /// A check-in of `booking` (of `owner`) by `user`: its owner, or, 1 in 8, someone else;
    /// presenting `accessCode` (its socket's, or 1 in 8 a wrong one, when the socket has one).
    case checkIn(booking: UInt64, owner: UInt64, by: UInt64, accessCode: String?)
    /// A check-in that found no booking.
    case nothingToCheckIn(user: UInt64)
    /// A check-out of `booking` (of `owner`, recently checked in) by `user`: its owner, or, 1 in
    /// 8, someone else; leaving its resource at `leftAt` when the workload moves resources.
    case checkOut(booking: UInt64, owner: UInt64, by: UInt64, leftAt: Coordinate?)
    /// A check-out that found no checked-in booking.
    case nothingToCheckOut(user: UInt64)
}

/// What the draws pick cancels and retries from, kept by each mode from its outcomes: the users
/// who recently got a booking, each user's bookings, and recent accepted requests with an id.
struct DrawPools {
    struct Request {
        var user: UInt64
        var id: RequestID
        var cell: Int32
        var booking: UInt64
    }

    /// The last 256 users who got a booking (a ring): cancels pick among them, so cancellations
    /// and rebookings happen.
    var recentBookers = [UInt64](repeating: 0, count: 256)
    var recentCount = 0
    /// Per user: booking ids a cancel can aim at, in the order they were made.
    var bookings: [UInt64: [UInt64]] = [:]
    /// Up to 64 accepted requests with an id; later ones replace random ones.
    var requests: [Request] = []
    /// The cell of each booking in ``bookings``.
    var cellOf: [UInt64: Int32] = [:]

    struct HeldCell {
        var user: UInt64
        var cell: Int32
    }
    /// Up to 64 accepted holds; later ones replace random ones.
    var holds: [HeldCell] = []

    struct CheckedIn {
        var booking: UInt64
        var owner: UInt64
    }
    /// Up to 64 bookings recently checked in, for check-outs; later ones replace random ones.
    var checkedIn: [CheckedIn] = []

    mutating func rememberCheckIn(_ booking: CheckedIn, rng: inout SplitMix64) {
        if checkedIn.count < 64 { checkedIn.append(booking) } else { checkedIn[rng.below(64)] = booking }
    }

    mutating func rememberHold(_ hold: HeldCell, rng: inout SplitMix64) {
        if holds.count < 64 { holds.append(hold) } else { holds[rng.below(64)] = hold }
    }

    mutating func noteBooker(_ user: UInt64) {
        recentBookers[recentCount & 255] = user
        recentCount &+= 1
    }

    mutating func add(_ booking: UInt64, of user: UInt64, cell: Int32) {
        bookings[user, default: []].append(booking)
        cellOf[booking] = cell
    }

    mutating func remove(_ booking: UInt64, of user: UInt64) {
        bookings[user]?.removeAll { $0 == booking }
        cellOf[booking] = nil
    }

    mutating func remember(_ request: Request, rng: inout SplitMix64) {
        if requests.count < 64 { requests.append(request) } else { requests[rng.below(64)] = request }
    }
}

/// The workload's random part, drawn once for both modes: which operation, by whom, on which
/// cell, from the scenario's mix. The deterministic mode draws from the scenario's seed, each
/// threads-mode worker from its own.
struct WorkloadDraw {
    let p: PreparedScenario
    /// Cumulative weights: an operation is the first kind whose bound exceeds the roll.
    let reserveW: Int
    let cancelW: Int
    let queryW: Int
    let changeW: Int
    let retryW: Int
    let holdW: Int
    let confirmW: Int
    let releaseW: Int
    let rescheduleW: Int
    let anySocketW: Int
    let checkInW: Int
    let total: Int
    let hotThreshold: UInt64
    let candidates: CandidateGrid
    let perStep: Int64

    init?(_ p: PreparedScenario) {
        guard let w = p.scenario.workload else { return nil }
        self.p = p
        reserveW = w.mix.reserve
        cancelW = reserveW + (w.mix.cancel ?? 0)
        queryW = cancelW + (w.mix.query ?? 0)
        changeW = queryW + (w.mix.availability ?? 0)
        retryW = changeW + (w.mix.retry ?? 0)
        holdW = retryW + (w.mix.hold ?? 0)
        confirmW = holdW + (w.mix.confirm ?? 0)
        releaseW = confirmW + (w.mix.releaseHold ?? 0)
        rescheduleW = releaseW + (w.mix.reschedule ?? 0)
        anySocketW = rescheduleW + (w.mix.anySocket ?? 0)
        checkInW = anySocketW + (w.mix.checkIn ?? 0)
        total = checkInW + (w.mix.checkOut ?? 0)
        let hotShare = p.hot.isEmpty ? 0 : (w.hotness?.share ?? 0)
        hotThreshold = UInt64(hotShare * 0x1p53)
        candidates = CandidateGrid(p) ?? CandidateGrid(list: p.candidates)
        perStep = Int64(max(1, p.scenario.clock.operationsPerStep ?? 1))
    }

    /// The virtual time of operation `index` (the clock advances every `operationsPerStep`).
    func now(at index: Int) -> Int64 {
        p.workloadStart &+ p.scenario.clock.stepSeconds &* (Int64(index) / perStep)
    }

    func candidate(_ rng: inout SplitMix64) -> Int32 { candidates[rng.below(candidates.count)] }

    /// The next operation.
    func next(_ rng: inout SplitMix64, pools: DrawPools) -> DrawnOperation {
        let roll = total > 0 ? rng.below(total) : 0
        let user = p.firstUser &+ UInt64(rng.below(p.userCount))
        if roll < reserveW {
            let cell = (rng.next() >> 11) < hotThreshold ? p.hot[rng.below(p.hot.count)] : candidate(&rng)
            return .reserve(cell: cell, user: user)
        }
        if roll < cancelW { return drawCancel(&rng, user: user, pools: pools) }
        if roll < queryW { return .query(cell: candidate(&rng), user: user) }
        if roll < changeW {
            let change = Simulator.randomChange(p, cell: candidate(&rng), rng: &rng)
            return .change(change, rng.below(4) == 0 ? .refuse : .displace, user: user)
        }
        if roll >= retryW { return drawLifecycle(&rng, roll: roll, user: user, pools: pools) }
        if !pools.requests.isEmpty, rng.below(2) == 0 {
            let r = pools.requests[rng.below(pools.requests.count)]
            let cell = rng.below(4) == 0 ? candidate(&rng) : r.cell
            return .retry(cell: cell, user: r.user, earlier: r)
        }
        return .retry(cell: candidate(&rng), user: user, earlier: nil)
    }

    /// A hold, confirm, release, reschedule, any-socket request or check-in (the weights after
    /// `retry`, so a scenario without them draws as before).
    func drawLifecycle(_ rng: inout SplitMix64, roll: Int, user: UInt64, pools: DrawPools) -> DrawnOperation {
        if roll >= checkInW { return drawCheckOut(&rng, user: user, pools: pools) }
        if roll >= anySocketW {
            // Like a cancel: a recent booker's own booking, or 1 in 8 by someone else.
            switch drawCancel(&rng, user: user, pools: pools) {
            case .cancel(let booking, let owner, let by):
                return .checkIn(
                    booking: booking, owner: owner, by: by, accessCode: accessCode(of: booking, &rng, pools: pools))
            default: return .nothingToCheckIn(user: user)
            }
        }
        if roll < holdW {
            let cell = (rng.next() >> 11) < hotThreshold ? p.hot[rng.below(p.hot.count)] : candidate(&rng)
            return .hold(cell: cell, user: user)
        }
        if roll < releaseW {
            var cell = candidate(&rng)
            var by = user
            if !pools.holds.isEmpty {
                let held = pools.holds[rng.below(pools.holds.count)]
                cell = held.cell
                if rng.below(8) != 0 { by = held.user }
            }
            return roll < confirmW ? .confirm(cell: cell, user: by) : .releaseHold(cell: cell, user: by)
        }
        if roll < rescheduleW {
            var owner = user
            if pools.recentCount > 0 { owner = pools.recentBookers[rng.below(min(pools.recentCount, 256))] }
            let list = pools.bookings[owner] ?? []
            guard !list.isEmpty else { return .nothingToMove(user: owner) }
            let booking = list[rng.below(list.count)]
            let from = pools.cellOf[booking] ?? candidate(&rng)
            let to = from - p.grid.hour(ofCell: from) + Int32(rng.below(24))
            return .reschedule(booking: booking, owner: owner, to: to, by: rng.below(8) == 0 ? user : owner)
        }
        let cell = candidate(&rng)
        let slot = p.slot(ofCell: cell)
        let socket = p.rules.catalog.station(slot.station)?.sockets.first { $0.id == slot.socket }
        let request = AnySocketRequest(
            station: slot.station, connector: socket?.connector ?? ConnectorType("CCS"),
            minimumPowerKW: rng.below(2) == 0 ? 0 : socket?.powerKW ?? 0, date: slot.date, hour: slot.hour,
            user: UserID(user))
        return .anySocket(request, cell: cell)
    }

    /// The code a check-in of `booking` presents: its socket's, or 1 in 8 a wrong one, when the
    /// socket has one (no draw otherwise, so a scenario without codes draws as before).
    func accessCode(of booking: UInt64, _ rng: inout SplitMix64, pools: DrawPools) -> String? {
        guard let cell = pools.cellOf[booking], let code = p.accessCode(ofCell: cell) else { return nil }
        return rng.below(8) == 0 ? code + "-wrong" : code
    }

    /// A check-out of a recently checked-in booking, by its owner or 1 in 8 by `user`; 1 in 4 of a
    /// recent booker's booking drawn as a cancel's, most of them never checked in (which a store
    /// must refuse as `notCheckedIn`).
    func drawCheckOut(_ rng: inout SplitMix64, user: UInt64, pools: DrawPools) -> DrawnOperation {
        if pools.checkedIn.isEmpty || rng.below(4) == 0 {
            if case .cancel(let booking, let owner, let by) = drawCancel(&rng, user: user, pools: pools) {
                return .checkOut(booking: booking, owner: owner, by: by, leftAt: place(of: booking, &rng, pools: pools))
            }
            return .nothingToCheckOut(user: user)
        }
        let b = pools.checkedIn[rng.below(pools.checkedIn.count)]
        let by = rng.below(8) == 0 ? user : b.owner
        return .checkOut(booking: b.booking, owner: b.owner, by: by, leftAt: place(of: b.booking, &rng, pools: pools))
    }

    /// Where a check-out of `booking` leaves its resource (``PreparedScenario/rideEnd(from:_:)``).
    func place(of booking: UInt64, _ rng: inout SplitMix64, pools: DrawPools) -> Coordinate? {
        guard let cell = pools.cellOf[booking] else { return nil }
        return p.rideEnd(from: p.slot(ofCell: cell).station, &rng)
    }

    /// A cancel: a recent booker's own booking, or 1 in 8 a random user's booking by the recent booker.
    func drawCancel(_ rng: inout SplitMix64, user drawn: UInt64, pools: DrawPools) -> DrawnOperation {
        var user = drawn
        if pools.recentCount > 0 { user = pools.recentBookers[rng.below(min(pools.recentCount, 256))] }
        if rng.below(8) == 0 {
            // Someone else's booking: must be refused (notOwner) and change nothing.
            let owner = p.firstUser &+ UInt64(rng.below(p.userCount))
            let other = pools.bookings[owner] ?? []
            if !other.isEmpty, case let b = other[rng.below(other.count)], owner != user {
                return .cancel(booking: b, owner: owner, by: user)
            }
            return .nothingToCancel(user: user)
        }
        let list = pools.bookings[user] ?? []
        guard !list.isEmpty else { return .nothingToCancel(user: user) }
        return .cancel(booking: list[rng.below(list.count)], owner: user, by: user)
    }
}
