import SlotScheduler

/// Which rule a partition that no order explains breaks (beside I11): the partition is searched
/// again with one rule taken out, and the first whose absence lets an order exist is named.
extension ThreadsAnalysis {
    /// A user partition's specification: the model's limits, no-show limit and hold cap.
    func userSpecification(_ ops: [BookingOperation], noShows: Bool = true, judgesExpiry: Bool = true)
        -> UserSpecification
    {
        UserSpecification(
            ops, noShowRules: noShows ? rules : nil, holdLimit: rules.policy.maxHoldsPerUser,
            judgesExpiry: judgesExpiry)
    }

    /// The invariant, and the rule's name, that a failing partition's operations break: I19 (per
    /// user) when it is the no-show limit; I16 when confirms and refusals as held or expired not
    /// held to the holds' expiry would explain it; else I15 (per slot) or I17 (per user) when the
    /// history without its holds would. `nil`: none of these (I11 alone).
    func attribute(_ ops: [BookingOperation], bySlot: Bool, budget: Int) -> (Invariant, String)? {
        func orderable(_ view: [BookingOperation], noShows: Bool = true, judgesExpiry: Bool = true) -> Bool {
            let intervals = view.map { ($0.invoke, $0.complete) }
            let verdict =
                bySlot
                ? LinearizabilityChecker.check(
                    SlotSpecification(view, judgesExpiry: judgesExpiry), intervals: intervals, budget: budget)
                : LinearizabilityChecker.check(
                    userSpecification(view, noShows: noShows, judgesExpiry: judgesExpiry), intervals: intervals,
                    budget: budget)
            return verdict == .linearizable
        }
        if !bySlot, rules.policy.noShowLimit != nil, orderable(ops, noShows: false) {
            return (.I19, "the limit their no-shows lower")
        }
        guard ops.contains(where: \.concernsHolds) else { return nil }
        if orderable(ops, judgesExpiry: false) { return (.I16, "its holds' expiry") }
        if orderable(ops.withoutHolds()) {
            return bySlot ? (.I15, "its holds' slots to their holders") : (.I17, "holds within the limits")
        }
        return nil
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
