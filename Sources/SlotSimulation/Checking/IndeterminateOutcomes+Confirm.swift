import SlotScheduler

extension IndeterminateOutcomes {
    /// What the history says about the confirms of unknown outcome: which holds could still be
    /// live, what ended them, and which acknowledged confirms first returned their booking.
    struct ConfirmEvidence {
        typealias Hold = (invoke: Int64, complete: Int64, expiry: Int64)
        typealias Ending = (invoke: Int64, complete: Int64)
        typealias FirstReturn = (index: Int, cell: Int32, booking: UInt64, invoke: Int64)
        /// Holds accepted or of unknown outcome, by user and cell.
        var holds: [UInt64: [Int32: [Hold]]] = [:]
        /// Accepted confirms and releases (which end holds), by user and cell.
        var ends: [UInt64: [Int32: [Ending]]] = [:]
        /// Acknowledged confirms that first returned their booking, by user, in history order:
        /// an unknown confirm of the same slot before one of them may have made that booking (the
        /// later one returning it again, as a repeated confirm does).
        var firstReturns: [UInt64: [FirstReturn]] = [:]
        /// The holds a resolved confirm of unknown outcome certainly made its booking from.
        var confirmed: Set<HoldIndex> = []

        struct HoldIndex: Hashable {
            var user: UInt64
            var cell: Int32
            /// The hold's place in its user's and cell's ``holds``.
            var index: Int
        }

        /// - Complexity: O(n) over the history.
        init(_ history: CompactHistory, holdSeconds: Int64) {
            var returned = Set<UInt64>()
            for (j, op) in history.enumerated() where op.outcome == -1 || op.outcome == -2 {
                if op.kind == .hold {
                    holds[op.user, default: [:]][op.cell, default: []].append(
                        (op.invoke, op.complete, op.now + holdSeconds))
                }
                guard op.outcome == -1 else { continue }
                if op.kind == .confirm || op.kind == .releaseHold {
                    ends[op.user, default: [:]][op.cell, default: []].append((op.invoke, op.complete))
                }
                guard IndeterminateOutcomes.makesBookings.contains(op.kind), returned.insert(op.booking).inserted,
                    op.kind == .confirm
                else { continue }
                firstReturns[op.user, default: []].append((j, op.cell, op.booking, op.invoke))
            }
        }

        /// The holds (indices in ``holds``) of the confirm's user on its slot that could live at its
        /// `now`, were not certainly confirmed or released before it began, and were not already
        /// taken by a confirm of unknown outcome resolved as made (a hold makes one booking; a
        /// second confirm of it returns that booking again): only with one could it make a
        /// booking (else it repeated an earlier confirm, or was refused).
        func holdsItCouldConfirm(_ op: TimedOperation) -> [Int] {
            let endings = ends[op.user]?[op.cell] ?? []
            let candidates = holds[op.user]?[op.cell] ?? []
            return candidates.indices.filter { h in
                let hold = candidates[h]
                return hold.invoke < op.complete && op.now < hold.expiry
                    && !confirmed.contains(HoldIndex(user: op.user, cell: op.cell, index: h))
                    && !endings.contains { $0.invoke > hold.complete && $0.complete < op.invoke }
            }
        }

        /// Records that a confirm of unknown outcome made a booking from one of `candidates`
        /// (``holdsItCouldConfirm(_:)``): when there is only one, no later confirm makes another from it.
        mutating func markConfirmed(_ op: TimedOperation, from candidates: [Int]) {
            guard candidates.count == 1 else { return }
            confirmed.insert(HoldIndex(user: op.user, cell: op.cell, index: candidates[0]))
        }

        /// Takes out the first later acknowledged confirm of the slot by the user that returned
        /// its booking first, if no new hold of the slot by the user came between the two (one
        /// begun after the unknown confirm ended: a hold made while it ran may be the one it
        /// confirmed). That confirm returned what the unknown one (history index `i`) made.
        mutating func takeLaterReturn(of op: TimedOperation, at i: Int) -> FirstReturn? {
            let holdsOfSlot = holds[op.user]?[op.cell] ?? []
            guard
                let k = firstReturns[op.user]?.firstIndex(where: { later in
                    later.index > i && later.cell == op.cell
                        && !holdsOfSlot.contains { $0.invoke > op.complete && $0.complete < later.invoke }
                })
            else { return nil }
            return firstReturns[op.user]?.remove(at: k)
        }
    }

    /// Resolves the confirm of unknown outcome at history index `i` (in history order): it made a
    /// booking if a hold could let it and either a later acknowledged confirm first returned that booking, or the
    /// store holds an unclaimed booking of its user and slot. Returns whether it happened.
    mutating func resolveConfirm(_ i: Int, _ evidence: inout ConfirmEvidence, _ p: PreparedScenario) -> Bool {
        let op = history[i]
        let candidates = evidence.holdsItCouldConfirm(op)
        guard !candidates.isEmpty else { return false }
        if let later = evidence.takeLaterReturn(of: op, at: i) {
            resolve(i)
            history[i].booking = later.booking
        } else if !claim(i, in: [op.cell], p) {
            return false
        }
        evidence.markConfirmed(op, from: candidates)
        return true
    }

    /// Which cancels of unknown outcome happened: their booking ended cancelled and no
    /// acknowledged cancel did it (each booking's cancel counted once).
    struct CancelEvidence {
        let acknowledged: Set<UInt64>
        let cancelled: Set<UInt64>
        var resolved = Set<UInt64>()

        init(_ history: CompactHistory, finalBookings: BookingsByID) {
            acknowledged = Set(history.lazy.filter { $0.kind == .cancel && $0.outcome == -1 }.map(\.booking))
            cancelled = Set(finalBookings.all.lazy.filter { $0.status == .cancelled }.map(\.id.rawValue))
        }

        /// Whether an unknown cancel of `booking` happened; a second one of the same booking did not.
        mutating func happened(_ booking: UInt64) -> Bool {
            cancelled.contains(booking) && !acknowledged.contains(booking) && resolved.insert(booking).inserted
        }
    }
}
