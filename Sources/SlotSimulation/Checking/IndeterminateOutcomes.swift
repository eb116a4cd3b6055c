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
///   `now`, not certainly confirmed or released before the confirm began (else it repeated an earlier confirm, which returns that booking again, or was
///   refused: it did not happen). Such a confirm happened if a later acknowledged confirm of that
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
        let acknowledged = Set(
            self.history.lazy.filter { [.reserve, .confirm, .anySocket].contains($0.kind) && $0.outcome == -1 }.map(
                \.booking))
        for op in self.history where op.kind == .change && op.outcome == -1 {
            for id in op.displaced { displacedAt[id] = min(displacedAt[id] ?? .max, op.complete) }
        }
        for booking in finalBookings.all
        where !acknowledged.contains(booking.id.rawValue) {
            unclaimed[booking.user.rawValue, default: [:]][booking.slot, default: []].append(booking)
        }
        let acknowledgedCancels = Set(
            self.history.lazy.filter { $0.kind == .cancel && $0.outcome == -1 }.map(\.booking))
        let cancelled = Set(finalBookings.all.lazy.filter { $0.status == .cancelled }.map(\.id.rawValue))
        var resolvedCancels = Set<UInt64>()
        // Acknowledged confirms that first returned their booking, by user: an unknown confirm of
        // the same slot before one of them may have made that booking (the later one returning it
        // again, as a repeated confirm does); it is resolved as happened, the later one a repeat.
        var retried: [UInt64: [(index: Int, cell: Int32, booking: UInt64, invoke: Int64)]] = [:]
        var returned = Set<UInt64>()
        // Holds accepted or of unknown outcome, and accepted confirms and releases (which end
        // them), by user and cell.
        var holds: [UInt64: [Int32: [(invoke: Int64, complete: Int64, expiry: Int64)]]] = [:]
        var ends: [UInt64: [Int32: [(invoke: Int64, complete: Int64)]]] = [:]
        let seconds = p.rules.policy.holdSeconds
        for (j, op) in self.history.enumerated() where op.outcome == -1 || op.outcome == -2 {
            if op.kind == .hold {
                holds[op.user, default: [:]][op.cell, default: []].append((op.invoke, op.complete, op.now + seconds))
            }
            guard op.outcome == -1 else { continue }
            if op.kind == .confirm || op.kind == .releaseHold {
                ends[op.user, default: [:]][op.cell, default: []].append((op.invoke, op.complete))
            }
            guard [.reserve, .confirm, .anySocket].contains(op.kind), returned.insert(op.booking).inserted,
                op.kind == .confirm
            else { continue }
            retried[op.user, default: []].append((j, op.cell, op.booking, op.invoke))
        }
        var anySocket: [Int] = []
        var reschedules: [Int] = []
        for i in self.history.indices where self.history[i].outcome == -2 {
            let op = self.history[i]
            switch op.kind {
            case .reserve where op.repeatOf == 0 && op.cell >= 0:
                if claim(i, in: [op.cell], p) {
                    summary.reservationsThatHappened += 1
                } else {
                    summary.reservationsThatDidNot += 1
                }
            case .confirm where op.cell >= 0:
                // Only a hold of its user that could live at its `now`, not certainly confirmed or
                // released before it began, lets it make a booking (else it repeated an earlier
                // confirm, or was refused).
                let endings = ends[op.user]?[op.cell] ?? []
                let couldMake = (holds[op.user]?[op.cell] ?? []).contains { hold in
                    hold.invoke < op.complete && op.now < hold.expiry
                        && !endings.contains { $0.invoke > hold.complete && $0.complete < op.invoke }
                }
                var happened = false
                // A later confirm returned what this one made only if no new hold of the slot
                // by its user came between them (begun after this one ended: a hold made while
                // it ran may be the one it confirmed).
                let holdsOfSlot = holds[op.user]?[op.cell] ?? []
                if couldMake,
                    let k = retried[op.user]?.firstIndex(where: { later in
                        later.index > i && later.cell == op.cell
                            && !holdsOfSlot.contains { $0.invoke > op.complete && $0.complete < later.invoke }
                    }),
                    let later = retried[op.user]?.remove(at: k)
                {
                    resolve(i)
                    self.history[i].booking = later.booking
                    happened = true
                } else if couldMake {
                    happened = claim(i, in: [op.cell], p)
                }
                if happened { summary.confirmsThatHappened += 1 } else { summary.confirmsThatDidNot += 1 }
            case .cancel:
                let happened =
                    cancelled.contains(op.booking) && !acknowledgedCancels.contains(op.booking)
                    && resolvedCancels.insert(op.booking).inserted
                if happened {
                    resolve(i)
                    summary.cancelsThatHappened += 1
                } else {
                    summary.cancelsThatDidNot += 1
                }
            case .anySocket where op.requestedCell >= 0: anySocket.append(i)
            case .reschedule where op.cell >= 0 && op.booking != 0: reschedules.append(i)
            default:
                summary.other += 1
            }
        }
        // Several slots each: after every call of one slot has taken its own.
        for i in anySocket {
            if claim(i, in: p.anySocketCells(of: self.history[i]), p) {
                summary.anySocketThatHappened += 1
            } else {
                summary.anySocketThatDidNot += 1
            }
        }
        resolveReschedules(reschedules, finalBookings: finalBookings, p: p)
    }

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

extension Report {
    /// How many operations ended without a definite outcome, and how the final state resolved them.
    public struct Indeterminate: Codable, Sendable, Equatable {
        public var reservationsThatHappened = 0
        public var reservationsThatDidNot = 0
        public var cancelsThatHappened = 0
        public var cancelsThatDidNot = 0
        public var confirmsThatHappened = 0
        public var confirmsThatDidNot = 0
        public var anySocketThatHappened = 0
        public var anySocketThatDidNot = 0
        public var reschedulesThatHappened = 0
        public var reschedulesThatDidNot = 0
        /// Repeats, queries, availability changes, holds, releases, check-ins and reschedules
        /// followed by another move of their booking: checked only where their outcome is known.
        public var other = 0

        public var total: Int {
            reservationsThatHappened + reservationsThatDidNot + cancelsThatHappened + cancelsThatDidNot
                + confirmsThatHappened + confirmsThatDidNot + anySocketThatHappened + anySocketThatDidNot
                + reschedulesThatHappened + reschedulesThatDidNot + other
        }

        /// The lifecycle calls' part of ``summary``; empty when there were none.
        var lifecycle: String {
            let parts = [
                ("confirms", confirmsThatHappened, confirmsThatDidNot),
                ("any-socket requests", anySocketThatHappened, anySocketThatDidNot),
                ("reschedules", reschedulesThatHappened, reschedulesThatDidNot),
            ]
            return parts.filter { $0.1 + $0.2 > 0 }.map { "\($0.0) \($0.1) happened, \($0.2) did not; " }.joined()
        }

        var summary: String {
            "\(total) indeterminate: reservations \(reservationsThatHappened) happened, \(reservationsThatDidNot) did not; "
                + "cancels \(cancelsThatHappened) happened, \(cancelsThatDidNot) did not; "
                + lifecycle + "\(other) other"
        }
    }
}
