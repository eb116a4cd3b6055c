import SlotScheduler

/// Operations whose outcome the client never learned, resolved against the store's final state.
///
/// A call that ended in an error that is not a refusal (a lost connection, a timeout, a server
/// that crashed while committing: `info` in the history) may have happened or not, as Jepsen
/// treats its `info` operations. The final state tells which:
/// - a reservation happened if the store holds a booking of its user and slot that no
///   acknowledged call made; an any-socket request, the same in any socket it could be given
///   (see ``PreparedScenario/anySocketCells(of:)``), looked for after the single-slot calls;
/// - a confirm could make a booking only while a hold of its user on its slot could live at its
///   `now`, not certainly confirmed or released before the confirm began, nor the only hold an
///   earlier confirm of unknown outcome resolved as made could have confirmed (else it repeated
///   an earlier confirm, which returns that booking again, or was refused: it did not happen). Such a confirm happened if a later acknowledged confirm of that
///   slot by that user was the first to return a booking (a retry returns it again: either order
///   is consistent, and this one the more permissive), else if the store holds a booking of its
///   user and slot that no acknowledged call made (nobody learned its id, so it cannot have moved
///   or been cancelled since);
/// - a cancel happened if its booking ended cancelled with no acknowledged cancel;
/// - a reschedule that was its booking's last move attempt (a booking's calls come from one
///   worker, in history order) happened if the booking ended in its new slot and was elsewhere
///   before; it did not if the booking ended anywhere else (where it was, or, wrongly, a third
///   slot, which the final-state check reports). One followed by another move of the booking
///   is undecided (`other`).
///
/// A resolved operation is checked as if acknowledged, completing at the end of the history (it
/// may have taken effect at any moment after its invocation); one that did not happen is left
/// out. Every definite violation is still reported.
struct IndeterminateOutcomes {
    /// The history with each indeterminate operation that happened rewritten as acknowledged.
    var history: CompactHistory
    var summary = Report.Indeterminate()
    /// One past the last completion: when resolved operations complete.
    let end: Int64
    /// Bookings no acknowledged call made, by user and slot, oldest id first; each resolved
    /// reservation, confirm or any-socket request takes its own out.
    var unclaimed: [UInt64: [Slot: [BookingsByID.Stored]]] = [:]
    /// When an accepted availability change that displaced each booking completed (the first).
    var displacedAt: [UInt64: Int64] = [:]

    /// Takes `history` over: it is rewritten in place, never copied.
    init(_ history: consuming CompactHistory, finalBookings: BookingsByID, p: PreparedScenario) {
        self.history = consume history
        end = (self.history.lazy.map(\.complete).max() ?? 0) &+ 1
        for op in self.history where op.kind == .change && op.outcome == -1 {
            for id in op.displaced { displacedAt[id] = min(displacedAt[id] ?? .max, op.complete) }
        }
        let acknowledged = Set(
            self.history.lazy.filter { Self.makesBookings.contains($0.kind) && $0.outcome == -1 }.map(\.booking))
        for booking in finalBookings.all where !acknowledged.contains(booking.id.rawValue) {
            unclaimed[booking.user.rawValue, default: [:]][booking.slot, default: []].append(booking)
        }
        var cancels = CancelEvidence(self.history, finalBookings: finalBookings)
        var confirms = ConfirmEvidence(self.history, holdSeconds: p.rules.policy.holdSeconds)
        var anySocket: [Int] = []
        var reschedules: [Int] = []
        for i in self.history.indices where self.history[i].outcome == -2 {
            let op = self.history[i]
            switch op.kind {
            case .reserve where op.repeatOf == 0 && op.cell >= 0:
                let happened = claim(i, in: [op.cell], p)
                summary.count(happened, \.reservationsThatHappened, \.reservationsThatDidNot)
            case .confirm where op.cell >= 0:
                let happened = resolveConfirm(i, &confirms, p)
                summary.count(happened, \.confirmsThatHappened, \.confirmsThatDidNot)
            case .cancel:
                let happened = cancels.happened(op.booking)
                if happened { resolve(i) }
                summary.count(happened, \.cancelsThatHappened, \.cancelsThatDidNot)
            case .anySocket where op.requestedCell >= 0: anySocket.append(i)
            case .reschedule where op.cell >= 0 && op.booking != 0: reschedules.append(i)
            default:
                summary.other += 1
            }
        }
        // Several slots each: after every call of one slot has taken its own.
        for i in anySocket {
            let happened = claim(i, in: p.anySocketCells(of: self.history[i]), p)
            summary.count(happened, \.anySocketThatHappened, \.anySocketThatDidNot)
        }
        resolveReschedules(reschedules, finalBookings: finalBookings, p: p)
    }

    /// The kinds of call that make a booking when accepted.
    static let makesBookings: [TimedOperation.Kind] = [.reserve, .confirm, .anySocket]

    /// Rewrites operation `i` as acknowledged, completing at ``end``.
    mutating func resolve(_ i: Int) {
        var resolved = history[i]
        resolved.outcome = -1
        resolved.complete = end
        resolved.resolvedIndeterminate = true
        history[i] = resolved
    }

    /// Resolves operation `i` as having made the oldest unclaimed booking of its user in any of
    /// `cells` (slots of one station, whose booking ids grow as they are made) that was not
    /// displaced before the operation began, if there is one: calls resolved in history order
    /// take bookings in the order they were made.
    mutating func claim(_ i: Int, in cells: [Int32], _ p: PreparedScenario) -> Bool {
        let op = history[i]
        var best: (cell: Int32, slot: Slot, k: Int, id: UInt64)?
        for cell in cells {
            let slot = p.slot(ofCell: cell)
            guard
                let k = unclaimed[op.user]?[slot]?.firstIndex(where: {
                    (displacedAt[$0.id.rawValue] ?? .max) >= op.invoke
                }),
                let id = unclaimed[op.user]?[slot]?[k].id.rawValue, best.map({ id < $0.id }) ?? true
            else { continue }
            best = (cell, slot, k, id)
        }
        guard let best else { return false }
        unclaimed[op.user]?[best.slot]?.remove(at: best.k)
        resolve(i)
        history[i].booking = best.id
        history[i].cell = best.cell
        return true
    }
}
