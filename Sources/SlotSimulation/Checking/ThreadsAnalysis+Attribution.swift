import SlotScheduler

/// Which rule a partition that no order explains breaks (beside I11): the partition is searched
/// again with one rule taken out, and the first whose absence lets an order exist is named. A
/// partition is searched again only when it failed, so a passing run costs nothing more.
extension ThreadsAnalysis {
    /// A user partition's specification: the model's limits, no-show limit and hold cap (with
    /// `limits` `false`, none of them: what is left is which bookings and holds the user has).
    func userSpecification(
        _ ops: [BookingOperation], noShows: Bool = true, limits: Bool = true
    ) -> UserSpecification {
        UserSpecification(
            ops, noShowRules: noShows && limits ? rules : nil, holdLimit: limits ? rules.policy.maxHoldsPerUser : nil)
    }

    /// The invariant, and the rule's name, that a failing partition's operations break: I19 (per
    /// user) when it is the no-show limit; I16 (per slot) when confirms and refusals not held to
    /// the holds' expiry would explain it; I15 (per slot) or I17 (per user) when the history without its
    /// holds would; else, when even the accepted calls alone cannot be ordered, I1 (per slot: two
    /// holders at once) or I2 (per user: when they can be with the limits lifted). `nil`: only
    /// refusals are wrong (I11 alone).
    func attribute(_ ops: [BookingOperation], bySlot: Bool, budget: Int) -> (Invariant, String)? {
        func orderable(_ view: [BookingOperation], noShows: Bool = true, judgesExpiry: Bool = true, limits: Bool = true)
            -> Bool
        {
            let intervals = view.map { ($0.invoke, $0.complete) }
            let verdict =
                bySlot
                ? LinearizabilityChecker.check(
                    SlotSpecification(view, judgesExpiry: judgesExpiry), intervals: intervals, budget: budget)
                : LinearizabilityChecker.check(
                    userSpecification(view, noShows: noShows, limits: limits), intervals: intervals, budget: budget)
            return verdict == .linearizable
        }
        if !bySlot, rules.policy.noShowLimit != nil, orderable(ops, noShows: false) {
            return (.I19, "the limit their no-shows lower")
        }
        if ops.contains(where: \.concernsHolds) {
            if bySlot, orderable(ops, judgesExpiry: false) { return (.I16, "its holds' expiry") }
            if orderable(ops.withoutHolds()) {
                return bySlot ? (.I15, "its holds' slots to their holders") : (.I17, "holds within the limits")
            }
        }
        let accepted = ops.filter { !$0.kind.isRefusal }
        if orderable(accepted) { return nil }
        if bySlot { return (.I1, "one booking at a time") }
        let unlimited = accepted.map {
            var op = $0
            op.limit = .max
            return op
        }
        return orderable(unlimited, limits: false) ? (.I2, "their limit") : nil
    }
}

extension BookingOperation.Kind {
    /// Whether it is a refusal: the call changed nothing.
    var isRefusal: Bool {
        switch self {
        case .refusedTaken, .refusedHeld, .refusedLimit, .refusedOther, .refusedInactive, .refusedLapsed,
            .refusedNotOpen, .refusedClosed, .refusedNotCheckedIn, .refusedCancelCutoff, .refusedMoveCutoff:
            true
        case .reserved, .repeated, .released, .neutral, .moved, .confirmed, .lapsed, .maybeHeld, .checkedIn,
            .maybeCheckedIn, .checkedOut, .movedInPlace:
            false
        }
    }
}

extension BookingOperation {
    /// Whether it makes, ends or is answered by a hold.
    var concernsHolds: Bool {
        switch kind {
        case .maybeHeld, .lapsed, .refusedHeld, .refusedLapsed, .confirmed: true
        case .reserved: start == .max
        default: false
        }
    }
}

extension [BookingOperation] {
    /// The history as if there were no holds: a confirm is a reservation.
    func withoutHolds() -> [BookingOperation] {
        compactMap {
            guard $0.concernsHolds else { return $0 }
            guard $0.kind == .confirmed else { return nil }
            var op = $0
            op.kind = .reserved
            op.hold = 0
            return op
        }
    }
}
