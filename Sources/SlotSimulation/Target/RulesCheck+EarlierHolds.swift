import SlotScheduler

/// Holds made before the run, which no API lists: a target used before (another run, another
/// client) may still hold slots for some users when the run begins. Each such hold counts toward
/// its user's limits, and keeps its slot, until it expires: at most the policy's `holdSeconds`
/// after the run's start (it was made before), plus the clock's tolerance. A partition the rules
/// explain without them needs none; one they do not is searched again with them:
/// - a user, when bookings were read before the run (the target has been used): with as many
///   such holds as could count (`maxHoldsPerUser`, at most the user's limit), each lapsing at any
///   moment up to that bound;
/// - a slot first taken from before the run by someone outside it (a hold as well as a booking
///   explains a refusal as taken): that holder leaving at any moment up to the bound.
extension RulesCheck {
    /// The last moment, on the run's clock (nanoseconds from its start), a hold made before the
    /// run may live until.
    var earlierHoldsEnd: Int64 {
        let seconds = Double(max(0, model.rules.policy.holdSeconds)) + clock.tolerance + 2
        return seconds * 1e9 < Double(Int64.max) ? Int64(seconds * 1e9) : .max
    }

    /// The lapse, at a moment up to `end`, of the hold `hold` of `user`.
    static func earlierHoldLapse(_ hold: UInt64, user: UInt64, until end: Int64) -> BookingOperation {
        BookingOperation(kind: .lapsed, booking: hold, user: user, now: 0, start: .max, invoke: 0, complete: end)
    }

    /// The holds `user` may have had from before the run: as many as could count toward their
    /// limits, numbered down from below ``outsider`` (no booking or hold of the run's has such a
    /// number; each user's partition is searched alone).
    func earlierHolds(of user: UInt64) -> [UInt64] {
        let limit = model.rules.limit(for: UserID(user))
        let count = min(model.rules.policy.maxHoldsPerUser, limit)
        return (0..<UInt64(max(0, count))).map { Self.outsider - 1 - $0 }
    }

    /// A user's partition (`ops`) searched with `holds` from before the run (``earlierHolds(of:)``),
    /// each lapsing at a moment up to `end`.
    static func verdictWithEarlierHolds(
        _ ops: [BookingOperation], holds: [UInt64], initial: UserSpecification.Held, holdLimit: Int?, until end: Int64,
        budget: Int
    ) -> LinearizabilityVerdict {
        var held = initial
        for hold in holds { held = held.adding(hold, start: .max) }
        let all = ops + holds.map { earlierHoldLapse($0, user: 0, until: end) }
        return verdict(
            UserSpecification(all, initial: held, noShowRules: nil, holdLimit: holdLimit), all, budget: budget)
    }

    /// A slot's partition (`ops`) searched as first held from before the run by someone outside
    /// it, who leaves at a moment up to `end`.
    static func verdictWithAnEarlierHold(_ ops: [BookingOperation], until end: Int64, budget: Int)
        -> LinearizabilityVerdict
    {
        let all = ops + [earlierHoldLapse(outsider, user: outsider, until: end)]
        return verdict(SlotSpecification(all, initial: outsider), all, budget: budget)
    }
}
