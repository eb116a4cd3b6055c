import SlotScheduler

/// Checks a threads-mode history: the invariants that can be decided from the history and the
/// final state, and linearizability per slot and per user, against the specifications (which
/// also name the rule a partition breaks: one booking per slot, I1; the user's limit, I2; holds,
/// I15-I17; see ``attribute(_:bySlot:budget:)``).
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
    /// Users who had a hold accepted, or asked for one with an unknown outcome (see
    /// ``numberHolds()``): a limit refusal of theirs is not judged, for it may count a hold the
    /// user's partition no longer holds (one given way to the user's next hold of its slot,
    /// which the store still counts at an earlier `now`).
    var holders: Set<UInt64> = []
    /// The hold id of each (user, cell) a hold was asked for (see ``numberHolds()``).
    var holdNumbers: [HoldKey: UInt64] = [:]
    /// The store's catalog after the run, when known: where the check-outs that moved stations
    /// left them is checked against it (``checkPlaces(in:)``).
    var finalCatalog: Catalog?

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
        if let finalCatalog { checkPlaces(in: finalCatalog) }
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
