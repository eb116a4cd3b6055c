import SlotScheduler

/// Checks a threads-mode history: the invariants that can be decided from the history and the
/// final state, and linearizability per slot and per user.
///
/// Every check is conservative: it reports a violation only when *no* order consistent with the
/// recorded times could explain it (a booking counts as held from its reservation's completion,
/// and as released from its cancel's invocation).
struct ThreadsAnalysis {
    let p: PreparedScenario
    /// The history as recorded, with indeterminate operations resolved (see ``IndeterminateOutcomes``).
    let history: CompactHistory
    let finalBookings: BookingsByID
    let options: RunOptions
    let indeterminate: Report.Indeterminate
    /// What the reference model says of the policy: the limits, time rules, check-in window and
    /// no-shows these checks hold the history to.
    let rules: ModelRules
    var violations = [Int](repeating: 0, count: Invariant.allCases.count)
    var failures: [Report.Failure] = []
    /// About how many operations one batch of linearizability partitions holds (a partition
    /// larger than this is one batch by itself).
    var partitionBatchSize = 1 << 20
    var linearizability = Report.Linearizability(
        status: "linearizable", partitions: 0, unknownPartitions: 0, failingPartition: nil)
    /// Where each booking was, in order: the history index of the operation that made it, then
    /// of each accepted reschedule that moved it to another cell (see ``findPlacements(made:)``).
    var placements: [UInt64: [Int]] = [:]
    /// The cell each moving reschedule took its booking from, by history index.
    var movedFrom: [Int: Int32] = [:]
    /// Bookings checked in (a check-in accepted while not checked in), found by ``checkSessions(made:)``.
    var sessionsCheckedIn = 0
    /// Users who had a hold accepted: a limit refusal of theirs may count a hold whose lapse the
    /// partitions do not see (its slot taken after it expired), so it is not judged.
    var holders: Set<UInt64> = []
    /// The hold id of each (user, cell) a hold was asked for (see ``numberHolds()``).
    var holdNumbers: [HoldKey: UInt64] = [:]

    init(p: PreparedScenario, history: consuming CompactHistory, finalBookings: BookingsByID, options: RunOptions) {
        self.p = p
        let resolved = IndeterminateOutcomes(consume history, finalBookings: finalBookings, p: p)
        self.history = resolved.history
        self.indeterminate = resolved.summary
        self.finalBookings = finalBookings
        self.options = options
        rules = ModelRules(policy: p.rules.policy)
    }

    mutating func violate(_ invariant: Invariant, at index: Int, _ message: String) {
        violations[Invariant.allCases.firstIndex(of: invariant) ?? 0] += 1
        guard failures.count < 20 else { return }
        var format = HistoryFormat(p)
        let nearby = history.indices.clamped(to: max(0, index - 4)..<min(history.count, index + 4)).map { i in
            let op = history[i]
            return
                "#\(i) process \(op.process) \(op.kind) user \(op.user)"
                + (op.cell >= 0 ? " \(format.slotName(op.cell))" : "")
                + (op.booking != 0 ? " booking \(op.booking)" : "")
                + " → \(op.outcome == -2 ? "error" : Reasons.name(op.outcome)) [\(op.invoke)…\(op.complete) ns]"
        }
        failures.append(
            .init(
                invariant: "\(invariant.rawValue) \(invariant.name)", seq: index, message: message, nearby: nearby,
                reproduce: options.reproduce))
    }

    /// An operation that may make a booking: a first reservation, a confirm or an any-socket
    /// request (these two return the booking again when repeated; ``bookingsMade()`` keeps the first).
    var isMade: (TimedOperation) -> Bool {
        {
            $0.outcome == -1 && $0.booking != 0
                && ($0.kind == .reserve && $0.repeatOf == 0 || $0.kind == .confirm || $0.kind == .anySocket)
        }
    }

    /// Checks every invariant, each in its own function, in the order their violations are listed.
    mutating func run(budget: Int) {
        let made = bookingsMade()
        findPlacements(made: made)
        numberHolds()
        do {
            let releasedAt = releases()
            let segments = self.segments(releasedAt: releasedAt)
            checkSlotsHeldOnce(segments)
            checkUserLimits(segments)
            // I13, I14: any-socket answers and moves (holds, I15-I17, are the partitions').
            checkLifecycle(made: made)
            checkWrongRefusals(segments)
            // I18, I21: each booking's session (I19 is the per-user partitions', with I11).
            checkSessions(made: made)
            checkAccessCodes(made: made)
        }
        checkBookable(made: made)
        // I5, I6, I9: the final state against the history.
        checkFinalBookings(made: made)
        checkActiveSlots(made: made)
        // I20: no active booking on an hour a charger fault closed.
        for message in p.bookingsOnFaults(finalBookings.all.lazy.map { ($0.id, $0.slot, $0.status) }) {
            violate(.I20, at: history.count - 1, message)
        }
        // I21: check-outs end the sessions they began.
        for message in finalBookings.sessionProblems {
            violate(.I21, at: history.count - 1, message)
        }
        checkCancelsAndRepeats(made: made)
        checkDisplacementsReported(made: made)
        // I11: per slot and per user.
        checkLinearizability(made: made, budget: budget)
    }

    /// Bookings made, by id (I1: no id is returned by two reservations).
    mutating func bookingsMade() -> [UInt64: Int] {
        var made: [UInt64: Int] = [:]
        for (i, op) in history.enumerated() where isMade(op) {
            // A repeated confirm or any-socket request returns the booking the first one made.
            if op.kind != .reserve, made[op.booking] != nil { continue }
            if made.updateValue(i, forKey: op.booking) != nil {
                violate(.I1, at: i, "booking id \(op.booking) was returned by two different reservations")
            }
        }
        return made
    }

    /// Releases: accepted cancels, check-outs and displacements, by booking (the first of each).
    func releases() -> [UInt64: Int] {
        var releasedAt: [UInt64: Int] = [:]
        for (i, op) in history.enumerated() {
            if op.kind.endsBooking, op.outcome == -1 { releasedAt[op.booking] = releasedAt[op.booking] ?? i }
            for id in op.displaced { releasedAt[id] = releasedAt[id] ?? i }
        }
        return releasedAt
    }

    /// I1: at no time are two bookings of one slot definitely held (I13 when the second came
    /// from an any-socket request, I14 from a reschedule).
    mutating func checkSlotsHeldOnce(_ segments: [Segment]) {
        var perCell: [Int32: [(time: Int64, delta: Int, index: Int)]] = [:]
        for s in segments {
            perCell[s.cell, default: []].append((s.from, 1, s.placedBy))
            if let end = s.endedBy { perCell[s.cell, default: []].append((s.to, -1, end)) }
        }
        for cell in perCell.keys.sorted() {
            guard
                let events = perCell[cell]?.sorted(by: { ($0.time, $0.delta, $0.index) < ($1.time, $1.delta, $1.index) }
                )
            else { continue }
            var held = 0
            for e in events {
                held += e.delta
                if held > 1 {
                    let invariant: Invariant =
                        switch history[e.index].kind {
                        case .anySocket: .I13
                        case .reschedule: .I14
                        default: .I1
                        }
                    violate(
                        invariant, at: e.index,
                        "\(p.slot(ofCell: cell)) was held by \(held) bookings at once (booking \(history[e.index].booking) \(history[e.index].kind == .reschedule ? "moved in" : "accepted") while another was active)"
                    )
                    break
                }
            }
        }
    }

    /// I2: when a booking was made, its user did not already definitely hold `limit` upcoming ones.
    mutating func checkUserLimits(_ segments: [Segment]) {
        var perUser: [UInt64: [Int]] = [:]
        for (k, s) in segments.enumerated() { perUser[s.user, default: []].append(k) }
        for user in perUser.keys.sorted() {
            guard let list = perUser[user] else { continue }
            let limit = rules.limit(for: UserID(user))
            guard list.count > limit else { continue }
            // Sweep in invoke order: `open` holds the segments begun before the invoke and not
            // ended before it (a superset of those that count), so each is looked at only while
            // it may be held, not once per other booking of the user.
            // - Complexity: O(k log k) for k segments of the user, plus the segments in `open`.
            var changes: [(time: Int64, add: Bool, k: Int)] = []
            for k in list {
                changes.append((segments[k].from, true, k))
                if segments[k].endedBy != nil { changes.append((segments[k].to, false, k)) }
            }
            // At equal times an end goes first: an end at the invoke does not count.
            changes.sort { ($0.time, $0.add ? 1 : 0, $0.k) < ($1.time, $1.add ? 1 : 0, $1.k) }
            var next = 0
            var open: [Int: Bool] = [:]
            // The operations that made or moved a booking, in invoke order.
            let acting = list.sorted {
                (history[segments[$0].placedBy].invoke, $0) < (history[segments[$1].placedBy].invoke, $1)
            }
            for k in acting {
                let i = segments[k].placedBy
                let op = history[i]
                // Added: begun strictly before the invoke; removed: ended strictly before it.
                while next < changes.count, changes[next].time < op.invoke {
                    if changes[next].add { open[changes[next].k] = true } else { open[changes[next].k] = nil }
                    next += 1
                }
                var held = 0
                for j in open.keys where segments[j].booking != op.booking {
                    let other = segments[j]
                    guard other.from < op.invoke, ModelRules.isUpcoming(start: p.starts[Int(other.cell)], at: op.now)
                    else { continue }
                    if other.endedBy != nil, other.to < op.complete { continue }
                    held += 1
                    if !ModelRules.admits(upcoming: held, limit: limit) { break }
                }
                if !ModelRules.admits(upcoming: held, limit: limit) {
                    violate(
                        .I2, at: i,
                        "user \(user) was given booking \(op.booking) while already holding \(held) upcoming bookings (limit \(limit))"
                    )
                    break
                }
            }
        }
    }

    /// I3, I4: each booking made was bookable when made.
    mutating func checkBookable(made: [UInt64: Int]) {
        let availability = AvailabilityHistory(p, history: history)
        for i in placements.values.joined().sorted() {
            let op = history[i]
            let start = p.starts[Int(op.cell)]
            if start == Int64.min {
                violate(
                    .I4, at: i,
                    "booking \(op.booking) is at \(p.slot(ofCell: op.cell)), a local time that does not exist")
                continue
            }
            // The station's date matters for a rolling horizon only.
            var today: Int32?
            if case .rollingDays = rules.policy.horizon {
                let station = p.slot(ofCell: op.cell).station
                today = p.rules.catalog.localDate(of: station, at: Instant(secondsSinceEpoch: op.now))?.dayNumber
            }
            if let reason = rules.timeRefusal(start: start, day: p.grid.day(ofCell: op.cell), today: today, now: op.now)
            {
                violate(
                    .I3, at: i,
                    "booking \(op.booking) of \(p.slot(ofCell: op.cell)) was made at \(Instant(secondsSinceEpoch: op.now)), when the model refuses it: \(reason.rawValue)"
                )
            }
            if !availability.couldBeOpen(cell: op.cell, during: op) {
                violate(.I4, at: i, "booking \(op.booking) of \(p.slot(ofCell: op.cell)) is in closed hours")
            }
        }
    }

    /// I1 in the final state: no slot has two active bookings.
    mutating func checkActiveSlots(made: [UInt64: Int]) {
        var activeSlots: [Slot: UInt64] = [:]
        for b in finalBookings.all where b.status == .active {
            if let other = activeSlots.updateValue(b.id.rawValue, forKey: b.slot) {
                violate(.I1, at: made[b.id.rawValue] ?? 0, "bookings \(other) and \(b.id) are both active on \(b.slot)")
            }
        }
    }

    /// I6: only the owner cancels (or checks out), and a cancelled (or checked-out) booking is no
    /// longer active; I12: a repeated
    /// request returns the booking the first one made.
    mutating func checkCancelsAndRepeats(made: [UInt64: Int]) {
        for (i, op) in history.enumerated() {
            if op.kind.endsBooking, op.outcome == -1 {
                if let made = made[op.booking], history[made].user != op.user {
                    violate(.I6, at: i, "user \(op.user) cancelled booking \(op.booking) of user \(history[made].user)")
                }
                if finalBookings[id: op.booking]?.status == .active {
                    violate(.I6, at: i, "booking \(op.booking) was cancelled but is still active")
                }
            }
            // A repeat that ended indeterminate (-2) says nothing.
            if op.repeatOf != 0, op.outcome != -2, op.outcome != -1 || op.booking != op.repeatOf {
                violate(
                    .I12, at: i,
                    "repeating request \(op.requestID ?? "") gave \(op.outcome == -1 ? "booking \(op.booking)" : Reasons.name(op.outcome)) instead of booking \(op.repeatOf)"
                )
            }
        }
    }

    /// I9: every booking the store displaced was reported displaced.
    mutating func checkDisplacementsReported(made: [UInt64: Int]) {
        let displacedIDs = Set(history.flatMap(\.displaced))
        for b in finalBookings.all where b.status == .displaced && !displacedIDs.contains(b.id.rawValue) {
            violate(.I9, at: made[b.id.rawValue] ?? 0, "booking \(b.id) was displaced without being reported")
        }
    }

    /// I5: every acknowledged booking is in the final state with its user and slot, and the final
    /// state holds nothing that no reservation (acknowledged, or indeterminate and resolved as
    /// happened) made: a lost acknowledgement and a refused command that changed the state are
    /// told apart.
    mutating func checkFinalBookings(made: [UInt64: Int]) {
        // Bookings with a move of unknown outcome: found in neither slot, they were moved wrongly.
        let unknownMoves = Set(history.lazy.filter { $0.kind == .reschedule && $0.outcome == -2 }.map(\.booking))
        for i in made.values.sorted() {
            let op = history[i]
            let moved = (placements[op.booking]?.count ?? 1) > 1 || unknownMoves.contains(op.booking)
            let slot = p.slot(ofCell: lastCell(op.booking, made: made))
            guard let stored = finalBookings[id: op.booking] else {
                violate(
                    .I5, at: i,
                    "booking \(op.booking) of user \(op.user) at \(slot) was acknowledged, but the store does not hold it: an accepted reservation was lost"
                )
                continue
            }
            if stored.user.rawValue != op.user || stored.slot != slot {
                violate(
                    moved && stored.user.rawValue == op.user ? .I14 : .I5, at: i,
                    "booking \(op.booking) was acknowledged to user \(op.user) at \(slot), but the store holds it for user \(stored.user) at \(stored.slot)"
                )
            }
        }
        for stored in finalBookings.distinct where made[stored.id.rawValue] == nil {
            let id = stored.id.rawValue
            violate(
                .I5, at: history.count - 1,
                "the store holds booking \(id) of user \(stored.user) at \(stored.slot), which no reservation made: a refused or never-attempted command changed the state"
            )
        }
    }
}
