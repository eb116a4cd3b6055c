import SlotScheduler

/// The lifecycle checks of a threads-mode history (issue 16): where bookings were as they were
/// moved, and I13-I17 on holds, moves and any-socket answers. As every threads check, each is
/// conservative: a hold is live for certain only from its acceptance's completion until the
/// invocation of anything that could have ended it, and while the acting operation's `now` is
/// before its expiry.
extension ThreadsAnalysis {
    /// One stay of a booking in one cell: from the completion of the operation that put it there
    /// (`placedBy`) until the invocation of the one that took it away (`endedBy`: a move, a cancel
    /// or an availability change), if any.
    struct Segment {
        var booking: UInt64
        var user: UInt64
        var cell: Int32
        var placedBy: Int
        var from: Int64
        var endedBy: Int?
        var to: Int64
    }

    /// Fills ``placements``, ``movedFrom`` and ``holders``. A booking's own operations come from
    /// one worker, one at a time, so its accepted reschedules in history order are the order it
    /// moved in; a reschedule that left it in its cell (a repeat) moves nothing.
    mutating func findPlacements(made: [UInt64: Int]) {
        placements = made.mapValues { [$0] }
        for (i, op) in history.enumerated() where op.outcome == -1 {
            if op.kind == .hold { holders.insert(op.user) }
            guard op.kind == .reschedule, op.cell >= 0, let list = placements[op.booking], let last = list.last
            else { continue }
            let from = history[last].cell
            guard from != op.cell else { continue }
            placements[op.booking]?.append(i)
            movedFrom[i] = from
        }
    }

    /// Every booking's stays, in booking order.
    func segments(releasedAt: [UInt64: Int]) -> [Segment] {
        var segments: [Segment] = []
        for booking in placements.keys.sorted() {
            guard let list = placements[booking], let first = list.first else { continue }
            let user = history[first].user
            for (k, i) in list.enumerated() {
                let end = k + 1 < list.count ? list[k + 1] : releasedAt[booking]
                segments.append(
                    Segment(
                        booking: booking, user: user, cell: history[i].cell, placedBy: i, from: history[i].complete,
                        endedBy: end, to: end.map { history[$0].invoke } ?? .max))
            }
        }
        return segments
    }

    /// One accepted hold: who holds which cell from when until its expiry (by `now`), and what
    /// could have ended it before: a confirm or release by its user (`ended`: the first one's
    /// invocation, `endedDone`: the first completion), an availability change of its socket-day
    /// (`changed`, which may or may not end it), or, once expired, another hold or booking of its
    /// cell (a lapse: it still counts against its user until its expiry, but no longer holds the
    /// slot).
    struct LiveHold {
        var index: Int
        var user: UInt64
        var cell: Int32
        var from: Int64
        var expiry: Int64
        var ended: Int64 = .max
        var endedDone: Int64 = .max
        var changed: Int64 = .max
        /// The two earliest lapsing invocations (time, history index), and the first completion.
        var lapse: [(time: Int64, index: Int)] = []
        var lapseDone: Int64 = .max

        /// Whether it counts against its user, for certain, for the whole of `op`.
        func counts(during op: TimedOperation) -> Bool {
            from < op.invoke && op.complete < min(ended, changed) && op.now < expiry
        }

        /// Whether it holds its slot, for certain, for the whole of operation `i` (which may be
        /// the one that took the slot and so lapsed it).
        func holdsSlot(during op: TimedOperation, _ i: Int) -> Bool {
            counts(during: op) && op.complete < (lapse.first { $0.index != i }?.time ?? .max)
        }

        /// Whether it certainly no longer held its slot when `op` began.
        func gone(before op: TimedOperation) -> Bool { min(endedDone, lapseDone) < op.invoke }
    }

    /// The accepted holds and what could have ended each (see ``LiveHold``).
    func liveHolds() -> [LiveHold] {
        var holds: [LiveHold] = []
        var byCell: [Int32: [Int]] = [:]
        for (i, op) in history.enumerated() where op.kind == .hold && op.outcome == -1 && op.cell >= 0 {
            byCell[op.cell, default: []].append(holds.count)
            holds.append(
                LiveHold(
                    index: i, user: op.user, cell: op.cell, from: op.complete, expiry: rules.holdExpiry(madeAt: op.now))
            )
        }
        guard !holds.isEmpty else { return [] }
        for (j, op) in history.enumerated() where op.outcome == -1 || op.outcome == -2 {
            let after = { (k: Int) in j != holds[k].index && op.complete >= history[holds[k].index].invoke }
            switch op.kind {
            case .confirm, .releaseHold:
                for k in byCell[op.cell] ?? [] where holds[k].user == op.user && after(k) {
                    holds[k].ended = min(holds[k].ended, op.invoke)
                    // Certainly this hold's end only if it happened and began after the hold was
                    // made (the same user may hold the slot again from another worker).
                    if op.outcome == -1, op.invoke > holds[k].from {
                        holds[k].endedDone = min(holds[k].endedDone, op.complete)
                    }
                }
            case .hold, .reserve, .anySocket, .reschedule:
                for k in byCell[op.cell] ?? [] where after(k) {
                    holds[k].lapse.append((op.invoke, j))
                    holds[k].lapse.sort { ($0.time, $0.index) < ($1.time, $1.index) }
                    if holds[k].lapse.count > 2 { holds[k].lapse.removeLast() }
                    if op.outcome == -1, op.invoke > holds[k].from {
                        holds[k].lapseDone = min(holds[k].lapseDone, op.complete)
                    }
                }
            case .change:
                guard let change = op.change else { continue }
                for (cell, list) in byCell {
                    let slot = p.slot(ofCell: cell)
                    guard slot.station == change.station, slot.date == change.date,
                        change.socket.map({ $0 == slot.socket }) ?? true
                    else { continue }
                    for k in list where after(k) { holds[k].changed = min(holds[k].changed, op.invoke) }
                }
            default: break
            }
        }
        return holds
    }

    /// I13-I17 on the history; see each invariant in INVARIANTS.md.
    mutating func checkLifecycle(made: [UInt64: Int], segments: [Segment]) {
        checkAnySocketAnswers(made: made)
        for (i, op) in history.enumerated() where op.kind == .reschedule && op.outcome == -1 {
            if let m = made[op.booking], history[m].user != op.user {
                violate(.I14, at: i, "user \(op.user) moved booking \(op.booking) of user \(history[m].user)")
            }
        }
        let holds = liveHolds()
        guard !holds.isEmpty else { return }
        var byCell: [Int32: [Int]] = [:]
        var byUser: [UInt64: [Int]] = [:]
        for (k, h) in holds.enumerated() {
            byCell[h.cell, default: []].append(k)
            byUser[h.user, default: []].append(k)
        }
        var segmentsOf: [UInt64: [Int]] = [:]
        for (k, s) in segments.enumerated() { segmentsOf[s.user, default: []].append(k) }
        // Cells with a hold whose outcome is unknown: any of them may hold the slot.
        let uncertain = Set(history.lazy.filter { $0.kind == .hold && $0.outcome == -2 }.map(\.cell))
        for (i, op) in history.enumerated() {
            // I15: nothing else takes a slot while another user's hold of it certainly lives.
            let places = op.outcome == -1 && (op.kind == .reserve && op.repeatOf == 0 || op.kind == .anySocket)
            let moves = op.kind == .reschedule && movedFrom[i] != nil
            if places || moves || op.kind == .hold && op.outcome == -1 {
                for k in byCell[op.cell] ?? [] where holds[k].index != i && holds[k].user != op.user {
                    guard holds[k].holdsSlot(during: op, i), made[op.booking] == i || moves || op.kind == .hold
                    else { continue }
                    violate(
                        .I15, at: i,
                        "\(p.slot(ofCell: op.cell)) went to user \(op.user) (\(op.kind.historyName)) while user \(holds[k].user)'s hold of it lived"
                    )
                    break
                }
            }
            checkHoldExpiry(i, op, holds: holds, byCell: byCell, uncertain: uncertain)
            // I17: a user's live holds plus upcoming bookings within the limit, holds within theirs.
            guard op.outcome == -1, [.hold, .reserve, .confirm, .anySocket].contains(op.kind),
                op.kind == .hold || made[op.booking] == i
            else { continue }
            var live = 0
            for k in byUser[op.user] ?? []
            where holds[k].index != i && holds[k].counts(during: op)
                && !(op.kind == .confirm && holds[k].cell == op.cell)
            {
                live += 1
            }
            if op.kind == .hold, !rules.admitsHold(live: live) {
                violate(
                    .I17, at: i,
                    "user \(op.user) was given a hold while \(live) of theirs lived (at most \(rules.policy.maxHoldsPerUser))"
                )
                continue
            }
            guard live > 0 else { continue }
            var upcoming = 0
            for k in segmentsOf[op.user] ?? [] {
                let s = segments[k]
                guard s.booking != op.booking, s.from < op.invoke, s.endedBy == nil || s.to >= op.complete,
                    ModelRules.isUpcoming(start: p.starts[Int(s.cell)], at: op.now)
                else { continue }
                upcoming += 1
            }
            let limit = rules.limit(for: UserID(op.user))
            if !ModelRules.admits(upcoming: live + upcoming, limit: limit) {
                violate(
                    .I17, at: i,
                    "user \(op.user) was given \(op.kind == .hold ? "a hold" : "booking \(op.booking)") while holding \(live) live holds and \(upcoming) upcoming bookings (limit \(limit))"
                )
            }
        }
    }

    /// I16: an accepted confirm had a hold of its own that had not expired at its `now`; a slot
    /// refused as held had a hold that could still live.
    mutating func checkHoldExpiry(
        _ i: Int, _ op: TimedOperation, holds: [LiveHold], byCell: [Int32: [Int]], uncertain: Set<Int32>
    ) {
        let newConfirm = op.kind == .confirm && op.outcome == -1 && placements[op.booking]?.first == i
        let refusedHeld = op.outcome >= 0 && op.reason == .slotHeld && op.kind != .confirm
        guard newConfirm || refusedHeld else { return }
        // Holds that may have been made before the operation ended (indeterminate ones count too).
        let candidates = (byCell[op.cell] ?? []).filter {
            history[holds[$0].index].invoke < op.complete && op.now < holds[$0].expiry
        }
        if newConfirm, !candidates.contains(where: { holds[$0].user == op.user }), !uncertain.contains(op.cell) {
            violate(
                .I16, at: i,
                "user \(op.user) confirmed \(p.slot(ofCell: op.cell)) at \(Instant(secondsSinceEpoch: op.now)) with no hold of theirs live then (holds last \(p.rules.policy.holdSeconds) s)"
            )
        }
        // A hold ended (confirmed, released, lapsed) before the refusal began no longer holds the slot.
        if refusedHeld, !candidates.contains(where: { !holds[$0].gone(before: op) }), !uncertain.contains(op.cell) {
            violate(
                .I16, at: i,
                "\(p.slot(ofCell: op.cell)) was refused to user \(op.user) as held at \(Instant(secondsSinceEpoch: op.now)), but no hold of it could live then"
            )
        }
    }

    /// I13: an accepted any-socket request was given a socket of the station, date and hour it
    /// named, with its connector and at least its power (one of `anySocketCells(of:)`).
    mutating func checkAnySocketAnswers(made: [UInt64: Int]) {
        for (i, op) in history.enumerated() where op.kind == .anySocket && op.outcome == -1 {
            guard op.requestedCell >= 0 else { continue }
            let want = p.slot(ofCell: op.requestedCell)
            let station = p.rules.catalog.station(want.station)
            let asked = station?.sockets.first { $0.id == want.socket }
            guard op.cell >= 0 else {
                violate(.I13, at: i, "an any-socket request at \(want) was given a socket outside the scenario")
                continue
            }
            if !p.anySocketCells(of: op).contains(op.cell) {
                let got = p.slot(ofCell: op.cell)
                violate(
                    .I13, at: i,
                    "an any-socket request for \(asked?.connector.rawValue ?? "?") ≥ \(op.minimumPowerKW) kW at \(want.station) \(want.date) \(want.hour):00 was given \(got)"
                )
            }
        }
    }
}
