import SlotScheduler

/// Holds in the linearizability partitions of a threads-mode history (I11, with I15-I17 told
/// apart in ``ThreadsAnalysis/attribute(_:bySlot:budget:)``): a hold takes its slot until its
/// expiry by `now` and counts toward its user's limits until then, as the model decides; a
/// confirm turns it into a booking, a release ends it. The store names a hold by its slot and
/// user, so the specifications' hold id is one number per (user, cell).
extension ThreadsAnalysis {
    struct HoldKey: Hashable {
        var user: UInt64
        var cell: Int32
    }

    /// The id of `op`'s user's hold of `op`'s cell; for a pair no hold was ever asked for, one
    /// that no operation holds.
    func holdNumber(_ op: TimedOperation) -> UInt64 {
        holdNumbers[HoldKey(user: op.user, cell: op.cell)] ?? 1 << 63
    }

    /// Numbers every (user, cell) a hold was asked for, in history order; a hold accepted or of
    /// unknown outcome makes its user one of ``holders``.
    mutating func numberHolds() {
        for op in history where op.kind == .hold && op.cell >= 0 {
            let key = HoldKey(user: op.user, cell: op.cell)
            if op.outcome == -1 || op.outcome == -2 { holders.insert(op.user) }
            if holdNumbers[key] == nil { holdNumbers[key] = 1 << 63 | UInt64(holdNumbers.count + 1) }
        }
    }

    /// A hold, confirm or release as the specifications see it; `nil` when it says nothing
    /// about its slot or user.
    func holdOperation(_ i: Int, made: [UInt64: Int]) -> BookingOperation? {
        let op = history[i]
        guard op.cell >= 0 else { return nil }
        var b = BookingOperation(
            kind: .neutral, booking: holdNumber(op), user: op.user, now: op.now, start: .max,
            limit: Int32(clamping: rules.limit(for: UserID(op.user))), invoke: op.invoke, complete: op.complete)
        let reason = op.outcome >= 0 ? Reasons.all[Int(op.outcome)] : nil
        switch (op.kind, op.outcome) {
        case (.hold, -1), (.hold, -2):
            b.kind = op.outcome == -1 ? .reserved : .maybeHeld
            b.expiry = rules.holdExpiry(madeAt: op.now)
            // Made at an unknown moment, if at all (its lapse is implied: ``holdDrops()``).
            if op.outcome == -2 { b.complete = .max }
        case (.hold, _):
            switch reason {
            case .slotTaken: b.kind = .refusedTaken
            case .slotHeld: b.kind = .refusedHeld
            default: return nil
            }
        case (.confirm, -1):
            guard made[op.booking] == i else {
                b.kind = .repeated
                return b
            }
            b.kind = .confirmed
            b.hold = b.booking
            b.booking = op.booking
            b.start = p.starts[Int(op.cell)]
        case (.confirm, -2), (.releaseHold, -2):
            // Maybe the hold ended (a confirm whose booking the store does not hold made none).
            b.kind = .lapsed
            b.complete = .max
        case (.confirm, _):
            b.kind = reason == .holdExpired || reason == .unknownHold ? .refusedLapsed : .refusedOther
        case (.releaseHold, -1): b.kind = .lapsed
        default: return nil
        }
        return b
    }

    /// The holds of unknown outcome, each with its own lapse at any moment from its invocation
    /// on (it may never have been made). An availability change leaves holds as they are (the
    /// model's `commitChange`): a hold of a closed hour still keeps its slot until it expires.
    func holdDrops() -> [Implied] {
        history.indices.filter { history[$0].kind == .hold && history[$0].cell >= 0 && history[$0].outcome == -2 }
            .map {
                .holdLapse(call: $0, hold: holdNumber(history[$0]), cell: history[$0].cell, holder: history[$0].user)
            }
    }
}
