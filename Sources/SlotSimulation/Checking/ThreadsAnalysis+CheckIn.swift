import SlotScheduler

/// The check-in and check-out checks of a threads-mode history (I18, I21; I19, the no-show
/// limit, is the per-user partitions' in `ThreadsAnalysis+Linearizability.swift`). A booking's own
/// operations come from one worker, one at a time, so its stays, check-ins and check-outs in
/// history order are the order they happened in; a move clears a check-in.
extension ThreadsAnalysis {
    /// I18 and I21 in the history: each booking's check-ins and check-outs, with what made, moved
    /// and cancelled it, held in history order to the model's session rules; and I6 and I14, the
    /// cutoffs of its cancels and moves, by the same specification
    /// (``SessionSpecification``): reported when no order of them within their times fits, at
    /// the first, in history order, whose answer the model cannot give (a booking's own
    /// operations come from one worker, one at a time, so that is the one to blame). Only bookings some check-in or check-out names are
    /// looked at, and those cancelled or moved, or refused as past a cutoff; one no acknowledged
    /// operation made is not (its hour is not known).
    /// - Complexity: O(n) over the history, plus O(k log k) for the k bookings named.
    mutating func checkSessions(made: [UInt64: Int]) {
        var named = Set<UInt64>()
        let cutoffs = [Reasons.code(.cancellationCutoffPassed), Reasons.code(.rescheduleCutoffPassed)]
        for op in history
        where op.kind == .checkIn || op.kind == .checkOut
            || (op.kind == .cancel || op.kind == .reschedule) && (op.outcome == -1 || cutoffs.contains(op.outcome))
        {
            if made[op.booking] != nil { named.insert(op.booking) }
        }
        guard !named.isEmpty else { return }
        var sessions: [UInt64: [(index: Int, operation: BookingOperation)]] = [:]
        for (i, op) in history.enumerated() where named.contains(op.booking) {
            guard let kind = sessionKind(i, made: made) else { continue }
            let start = kind == .reserved || kind == .moved ? p.starts[Int(op.cell)] : .min
            sessions[op.booking, default: []].append(
                (
                    i,
                    BookingOperation(
                        kind: kind, booking: op.booking, user: op.user, now: op.now, start: start,
                        invoke: op.invoke, complete: op.complete)
                ))
        }
        for booking in sessions.keys.sorted() {
            guard let entries = sessions[booking] else { continue }
            let ops = entries.map(\.operation)
            let spec = SessionSpecification(ops, initial: .init(start: nil), rules: rules)
            let (found, checkIns) = spec.replay()
            sessionsCheckedIn += checkIns
            // Searched too, so that no order of calls that overlapped is missed.
            guard let (k, violation) = found,
                LinearizabilityChecker.check(spec, intervals: ops.map { ($0.invoke, $0.complete) }) == .notLinearizable
            else { continue }
            let op = history[entries[k].index]
            violate(
                Self.invariant(of: violation), at: entries[k].index,
                violation.explanation(booking: "\(booking)") + " (at \(Instant(secondsSinceEpoch: op.now)))")
        }
    }

    /// I21's access codes: a check-in by its booking's owner answered as made presented the code
    /// of the socket the booking was at (the model's `ModelRules.opens(code:presented:)`), and one refused
    /// `wrongAccessCode` did not. The booking's socket is its last stay placed before the call
    /// began; a call with a move of its booking in flight (none, when the owner's operations come
    /// from one worker) is not judged.
    /// - Complexity: O(n) over the history, plus the stays of each booking checked in.
    mutating func checkAccessCodes(made: [UInt64: Int]) {
        let wrong = Reasons.code(.wrongAccessCode)
        for (i, op) in history.enumerated() where op.kind == .checkIn && (op.outcome == -1 || op.outcome == wrong) {
            guard let m = made[op.booking], history[m].user == op.user, let stays = placements[op.booking] else {
                continue
            }
            let before = stays.filter { history[$0].complete < op.invoke }
            guard let last = before.last, history[last].cell >= 0,
                !stays.contains(where: { history[$0].complete >= op.invoke && history[$0].invoke <= op.complete })
            else { continue }
            let cell = history[last].cell
            let opens = ModelRules.opens(code: p.accessCode(ofCell: cell), presented: op.accessCode)
            if op.outcome == -1, !opens {
                violate(
                    .I21, at: i,
                    "booking \(op.booking) at \(p.slot(ofCell: cell)) was checked in with a wrong access code")
            } else if op.outcome == wrong, opens {
                violate(
                    .I21, at: i,
                    "a check-in of booking \(op.booking) at \(p.slot(ofCell: cell)) with its socket's code was refused wrongAccessCode"
                )
            }
        }
    }

    /// The invariant a session's violation breaks: I18 (check-in), I6 (a cancel's cutoff), I14
    /// (a move's) or I21 (check-out).
    static func invariant(of violation: SessionSpecification.Violation) -> Invariant {
        switch violation {
        case .acceptedAfterCutoff(_, let move), .refusedBeforeCutoff(_, let move): move ? .I14 : .I6
        default: violation.isCheckIn ? .I18 : .I21
        }
    }

    /// What operation `i` is to its booking's session, or `nil` if nothing.
    func sessionKind(_ i: Int, made: [UInt64: Int]) -> BookingOperation.Kind? {
        let op = history[i]
        if made[op.booking] == i { return op.cell >= 0 ? .reserved : nil }
        if placements[op.booking]?.contains(i) == true { return op.cell >= 0 ? .moved : nil }
        switch (op.kind, op.outcome) {
        case (.checkIn, -1): return .checkedIn
        case (.checkIn, -2): return .maybeCheckedIn
        case (.checkIn, Reasons.code(.checkInNotOpen)): return .refusedNotOpen
        case (.checkIn, Reasons.code(.checkInClosed)): return .refusedClosed
        case (.checkOut, -1): return .checkedOut
        case (.checkOut, Reasons.code(.notCheckedIn)): return .refusedNotCheckedIn
        case (.cancel, -1): return .released
        case (.cancel, Reasons.code(.cancellationCutoffPassed)): return .refusedCancelCutoff
        // Not a placement: it left the booking in its cell (``findPlacements(made:)``).
        case (.reschedule, -1): return .movedInPlace
        case (.reschedule, Reasons.code(.rescheduleCutoffPassed)): return .refusedMoveCutoff
        default: return nil
        }
    }
}
