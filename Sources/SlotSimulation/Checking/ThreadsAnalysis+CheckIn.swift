import SlotScheduler

/// The check-in and check-out checks of a threads-mode history (I18, I19, I21). A booking's own
/// operations come from one worker, one at a time, so its stays, check-ins and check-outs in
/// history order are the order they happened in; a move clears a check-in.
extension ThreadsAnalysis {
    /// I18 and I21 in the history: each booking's check-ins and check-outs, with what made, moved
    /// and cancelled it, held in history order to the model's session rules
    /// (``SessionSpecification``): reported when no order of them within their times fits, at
    /// the first, in history order, whose answer the model cannot give (a booking's own
    /// operations come from one worker, one at a time, so that is the one to blame). Only bookings some check-in or check-out names are
    /// looked at; one no acknowledged operation made is not (its hour is not known).
    /// - Complexity: O(n) over the history, plus O(k log k) for the k bookings named.
    mutating func checkSessions(made: [UInt64: Int]) {
        var named = Set<UInt64>()
        for op in history where op.kind == .checkIn || op.kind == .checkOut {
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
                violation.isCheckIn ? .I18 : .I21, at: entries[k].index,
                violation.explanation(booking: "\(booking)") + " (at \(Instant(secondsSinceEpoch: op.now)))")
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
        default: return nil
        }
    }

    /// I19: a booking made while its user certainly had enough no-shows in the window left them
    /// with no more certainly-held upcoming bookings than the lowered limit allows. A booking is
    /// certainly a no-show at an operation when every move of it completed before the
    /// operation began, nothing released it and no check-in of it began before the operation
    /// ended, and the operation's `now` is past its start + grace, within the window.
    mutating func checkNoShowLimits(_ segments: [Segment], made: [UInt64: Int]) {
        guard let rule = rules.policy.noShowLimit else { return }
        var checkInsOf: [UInt64: [Int]] = [:]
        for (i, op) in history.enumerated() where op.kind == .checkIn && op.outcome != Reasons.code(.notOwner) {
            checkInsOf[op.booking, default: []].append(i)
        }
        var segmentsOf: [UInt64: [Int]] = [:]
        for (k, s) in segments.enumerated() { segmentsOf[s.user, default: []].append(k) }
        for i in made.values.sorted() {
            let op = history[i]
            let own = rules.limit(for: UserID(op.user))
            guard rule.limit < own else { continue }
            var noShows = 0
            var upcoming = 0
            for k in segmentsOf[op.user] ?? [] where segments[k].booking != op.booking {
                let s = segments[k]
                let start = p.starts[Int(s.cell)]
                // Held for certain through the operation (none of it before or after).
                guard s.from < op.invoke, s.endedBy == nil || s.to > op.complete else { continue }
                if ModelRules.isUpcoming(start: start, at: op.now) {
                    upcoming += 1
                    continue
                }
                let checkedIn = (checkInsOf[s.booking] ?? []).contains {
                    history[$0].invoke < op.complete && history[$0].outcome != Reasons.code(.checkInClosed)
                        && history[$0].outcome != Reasons.code(.checkInNotOpen)
                }
                if !checkedIn, rules.isNoShow(start: start, at: op.now), rules.countsAsRecent(start: start, at: op.now)
                {
                    noShows += 1
                }
            }
            let lowered = rules.limit(own: own, noShows: noShows)
            if lowered < own, upcoming >= lowered {
                violate(
                    .I19, at: i,
                    "user \(op.user) was given booking \(op.booking) with \(noShows) no-shows in the last \(rule.days) days while holding \(upcoming) upcoming bookings (lowered limit \(lowered))"
                )
            }
        }
    }
}
