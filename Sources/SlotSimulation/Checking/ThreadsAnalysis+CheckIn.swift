import SlotScheduler

/// The check-in checks of a threads-mode history (I18, I19). A booking's own operations come
/// from one worker, one at a time, so its stays and check-ins in history order are the order
/// they happened in; a move clears a check-in.
extension ThreadsAnalysis {
    /// The first accepted check-in of each booking since its last move, by history index, with
    /// the cell the booking was in: the check-ins that were not repeats.
    func firstCheckIns() -> [Int: Int32] {
        var first: [Int: Int32] = [:]
        var checked: Set<UInt64> = []
        var cell: [UInt64: Int32] = [:]
        for (i, op) in history.enumerated() {
            if let list = placements[op.booking], list.contains(i) {
                cell[op.booking] = op.cell
                checked.remove(op.booking)
            }
            if op.kind == .checkIn, op.outcome == -1, let at = cell[op.booking], checked.insert(op.booking).inserted {
                first[i] = at
            }
        }
        return first
    }

    /// I18: a check-in accepted only in its window (``ModelRules/checkInWindow(start:)``), and
    /// refused as not open or closed only outside it.
    mutating func checkCheckIns() {
        let first = firstCheckIns()
        var cell: [UInt64: Int32] = [:]
        for (i, op) in history.enumerated() {
            if let list = placements[op.booking], list.contains(i) { cell[op.booking] = op.cell }
            guard op.kind == .checkIn, op.outcome != -2, let at = first[i] ?? cell[op.booking], at >= 0 else {
                continue
            }
            let window = rules.checkInWindow(start: p.starts[Int(at)])
            let (opens, closes) = (window.lowerBound, window.upperBound)
            let wrong: String? =
                switch op.outcome {
                case -1 where first[i] != nil && !(opens..<closes).contains(op.now): "accepted"
                case Reasons.code(.checkInNotOpen) where op.now >= opens: "refused as not open"
                case Reasons.code(.checkInClosed) where op.now < closes: "refused as closed"
                default: nil
                }
            if let wrong {
                violate(
                    .I18, at: i,
                    "check-in of booking \(op.booking) (\(p.slot(ofCell: at))) at \(Instant(secondsSinceEpoch: op.now)) was \(wrong); its window is \(Instant(secondsSinceEpoch: opens)) until \(Instant(secondsSinceEpoch: closes))"
                )
            }
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

extension ThreadsAnalysis {
    /// I21 in the history: a check-out accepted only of a booking some check-in of which
    /// (accepted, or of unknown outcome) began before the check-out ended; a check-out refused
    /// `notCheckedIn` only of a booking with no accepted check-in that ended before it began.
    mutating func checkCheckOuts() {
        guard history.contains(where: { $0.kind == .checkOut }) else { return }
        var checkIns: [UInt64: [Int]] = [:]
        for (i, op) in history.enumerated() where op.kind == .checkIn && (op.outcome == -1 || op.outcome == -2) {
            checkIns[op.booking, default: []].append(i)
        }
        for (i, op) in history.enumerated() where op.kind == .checkOut {
            let ins = checkIns[op.booking] ?? []
            if op.outcome == -1, !ins.contains(where: { history[$0].invoke < op.complete }) {
                violate(.I21, at: i, "booking \(op.booking) was checked out without a check-in before it")
            }
            // A move clears a check-in: only a booking never moved says "checked in" for sure.
            if op.outcome == Reasons.code(.notCheckedIn), (placements[op.booking]?.count ?? 1) == 1,
                ins.contains(where: { history[$0].outcome == -1 && history[$0].complete < op.invoke })
            {
                violate(.I21, at: i, "booking \(op.booking) was refused as not checked in after its check-in")
            }
        }
    }
}
