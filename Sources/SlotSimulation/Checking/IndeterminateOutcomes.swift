import SlotScheduler

/// Operations whose outcome the client never learned, resolved against the store's final state.
///
/// A reservation or cancel that ended in an error that is not a refusal (a lost connection, a
/// timeout, a server that crashed while committing: `info` in the history) may have happened or
/// not, as Jepsen treats its `info` operations. The final state tells which: an indeterminate
/// reservation happened if the store holds a booking of its user and slot that no acknowledged
/// reservation made; an indeterminate cancel happened if its booking ended cancelled with no
/// acknowledged cancel. A resolved operation is checked as if acknowledged, completing at the end
/// of the history (it may have taken effect at any moment after its invocation); one that did not
/// happen is left out. Every definite violation is still reported.
struct IndeterminateOutcomes {
    /// The history with each indeterminate operation that happened rewritten as acknowledged.
    var history: CompactHistory
    var summary = Report.Indeterminate()

    /// Takes `history` over: it is rewritten in place, never copied.
    init(_ history: consuming CompactHistory, finalBookings: BookingsByID, p: PreparedScenario) {
        self.history = consume history
        let end = (self.history.lazy.map(\.complete).max() ?? 0) &+ 1
        let acknowledged = Set(
            self.history.lazy.filter { [.reserve, .confirm, .anySocket].contains($0.kind) && $0.outcome == -1 }.map(
                \.booking))
        // Bookings no acknowledged reservation made, by user and slot, oldest id first.
        var unclaimed: [UInt64: [Slot: [BookingsByID.Stored]]] = [:]
        for booking in finalBookings.all
        where !acknowledged.contains(booking.id.rawValue) {
            unclaimed[booking.user.rawValue, default: [:]][booking.slot, default: []].append(booking)
        }
        let acknowledgedCancels = Set(
            self.history.lazy.filter { $0.kind == .cancel && $0.outcome == -1 }.map(\.booking))
        let cancelled = Set(finalBookings.all.lazy.filter { $0.status == .cancelled }.map(\.id.rawValue))
        var resolvedCancels = Set<UInt64>()
        for i in self.history.indices where self.history[i].outcome == -2 {
            let op = self.history[i]
            switch op.kind {
            case .reserve where op.repeatOf == 0 && op.cell >= 0:
                let slot = p.slot(ofCell: op.cell)
                if var candidates = unclaimed[op.user]?[slot], !candidates.isEmpty {
                    let booking = candidates.removeFirst()
                    unclaimed[op.user]?[slot] = candidates
                    var resolved = op
                    resolved.outcome = -1
                    resolved.booking = booking.id.rawValue
                    resolved.complete = end
                    resolved.resolvedIndeterminate = true
                    self.history[i] = resolved
                    summary.reservationsThatHappened += 1
                } else {
                    summary.reservationsThatDidNot += 1
                }
            case .cancel:
                let happened =
                    cancelled.contains(op.booking) && !acknowledgedCancels.contains(op.booking)
                    && resolvedCancels.insert(op.booking).inserted
                if happened {
                    var resolved = op
                    resolved.outcome = -1
                    resolved.complete = end
                    resolved.resolvedIndeterminate = true
                    self.history[i] = resolved
                    summary.cancelsThatHappened += 1
                } else {
                    summary.cancelsThatDidNot += 1
                }
            default:
                summary.other += 1
            }
        }
    }
}

extension Report {
    /// How many operations ended without a definite outcome, and how the final state resolved them.
    public struct Indeterminate: Codable, Sendable, Equatable {
        public var reservationsThatHappened = 0
        public var reservationsThatDidNot = 0
        public var cancelsThatHappened = 0
        public var cancelsThatDidNot = 0
        /// Repeats, queries and availability changes: checked only where their outcome is known.
        public var other = 0

        public var total: Int {
            reservationsThatHappened + reservationsThatDidNot + cancelsThatHappened + cancelsThatDidNot + other
        }

        var summary: String {
            "\(total) indeterminate: reservations \(reservationsThatHappened) happened, \(reservationsThatDidNot) did not; "
                + "cancels \(cancelsThatHappened) happened, \(cancelsThatDidNot) did not; \(other) other"
        }
    }
}
