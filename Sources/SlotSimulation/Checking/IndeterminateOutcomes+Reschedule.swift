import SlotScheduler

extension IndeterminateOutcomes {
    /// Resolves reschedules of unknown outcome (history indices `unknown`, in order), after the
    /// calls that make bookings have been resolved: one that was its booking's last move attempt
    /// happened if the booking ended in its new slot and could not have been there before; it did
    /// not if the booking ended anywhere else. A booking's calls come from one worker, so its
    /// move attempts in history order are the order they ran in.
    /// - Complexity: O(n) over the history, plus the bookings' move attempts.
    mutating func resolveReschedules(_ unknown: [Int], finalBookings: BookingsByID, p: PreparedScenario) {
        guard !unknown.isEmpty else { return }
        let wanted = Set(unknown.map { history[$0].booking })
        // Per booking: the cell it was made in, and its accepted or unknown moves in history order.
        var madeIn: [UInt64: Int32] = [:]
        var moves: [UInt64: [Int]] = [:]
        for (i, op) in history.enumerated() where wanted.contains(op.booking) {
            switch (op.kind, op.outcome) {
            case (.reserve, -1) where op.repeatOf == 0, (.confirm, -1), (.anySocket, -1):
                if madeIn[op.booking] == nil { madeIn[op.booking] = op.cell }
            case (.reschedule, -1), (.reschedule, -2): moves[op.booking, default: []].append(i)
            default: break
            }
        }
        for i in unknown {
            let op = history[i]
            guard let list = moves[op.booking], list.last == i, let made = madeIn[op.booking] else {
                // Another move followed (or the booking's making is unknown): the final state cannot tell.
                summary.other += 1
                continue
            }
            // Where the booking could be when this move began: after its last accepted move, or
            // any of the unknown ones since.
            var before = [made]
            for k in list.dropLast() {
                if history[k].outcome == -1 { before = [history[k].cell] } else { before.append(history[k].cell) }
            }
            guard let stored = finalBookings[id: op.booking], stored.slot == p.slot(ofCell: op.cell) else {
                summary.reschedulesThatDidNot += 1
                continue
            }
            if before.contains(op.cell) {
                // Already there, perhaps: a move to its own slot changes nothing either way.
                summary.other += 1
            } else {
                resolve(i)
                summary.reschedulesThatHappened += 1
            }
        }
    }
}
