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
    /// Users who had a hold accepted: a limit refusal of theirs may count holds the checks do not see.
    var holders: Set<UInt64> = []

    init(p: PreparedScenario, history: consuming CompactHistory, finalBookings: BookingsByID, options: RunOptions) {
        self.p = p
        let resolved = IndeterminateOutcomes(consume history, finalBookings: finalBookings, p: p)
        self.history = resolved.history
        self.indeterminate = resolved.summary
        self.finalBookings = finalBookings
        self.options = options
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
        do {
            let releasedAt = releases()
            let segments = self.segments(releasedAt: releasedAt)
            checkSlotsHeldOnce(segments)
            checkUserLimits(segments)
            // I13-I17: any-socket answers, moves and holds.
            checkLifecycle(made: made, segments: segments)
            checkWrongRefusals(segments)
            // I18, I19: check-ins and the no-show limit.
            checkCheckIns()
            checkNoShowLimits(segments, made: made)
        }
        checkBookable(made: made)
        // I5, I6, I9: the final state against the history.
        checkFinalBookings(made: made)
        checkActiveSlots(made: made)
        // I20: no active booking on an hour a charger fault closed.
        for message in p.bookingsOnFaults(finalBookings.all.lazy.map { ($0.id, $0.slot, $0.status) }) {
            violate(.I20, at: history.count - 1, message)
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

    /// Releases: accepted cancels and displacements, by booking (the first of each).
    func releases() -> [UInt64: Int] {
        var releasedAt: [UInt64: Int] = [:]
        for (i, op) in history.enumerated() {
            if op.kind == .cancel, op.outcome == -1 { releasedAt[op.booking] = releasedAt[op.booking] ?? i }
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
        let policy = p.rules.policy
        var perUser: [UInt64: [Int]] = [:]
        for (k, s) in segments.enumerated() { perUser[s.user, default: []].append(k) }
        for user in perUser.keys.sorted() {
            guard let list = perUser[user] else { continue }
            let limit = policy.limit(for: UserID(user))
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
                    guard other.from < op.invoke, Booking.isUpcoming(start: p.starts[Int(other.cell)], at: op.now)
                    else { continue }
                    if other.endedBy != nil, other.to < op.complete { continue }
                    held += 1
                    if held >= limit { break }
                }
                if held >= limit {
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
        let policy = p.rules.policy
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
            let day = p.grid.day(ofCell: op.cell)
            var horizonOK = true
            switch policy.horizon {
            case .unlimited: break
            case .lastDate(let last): horizonOK = day <= last.dayNumber
            case .rollingDays(let n):
                let station = p.slot(ofCell: op.cell).station
                if let today = p.rules.catalog.localDate(of: station, at: Instant(secondsSinceEpoch: op.now)) {
                    horizonOK = Int64(day) <= Int64(today.dayNumber) + Int64(n)
                }
            }
            if start < op.now + policy.minimumNoticeSeconds || !horizonOK {
                violate(
                    .I3, at: i,
                    "booking \(op.booking) of \(p.slot(ofCell: op.cell)) was made at \(Instant(secondsSinceEpoch: op.now)): in the past, too soon or beyond the horizon"
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

    /// I6: only the owner cancels, and a cancelled booking is no longer active; I12: a repeated
    /// request returns the booking the first one made.
    mutating func checkCancelsAndRepeats(made: [UInt64: Int]) {
        for (i, op) in history.enumerated() {
            if op.kind == .cancel, op.outcome == -1 {
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

    func operation(_ i: Int, made: [UInt64: Int]) -> BookingOperation? {
        let op = history[i]
        var b = BookingOperation(
            kind: .neutral, booking: op.booking, user: op.user, now: op.now, invoke: op.invoke, complete: op.complete)
        switch (op.kind, op.outcome) {
        case (.reserve, -1), (.confirm, -1), (.anySocket, -1):
            b.kind = op.repeatOf != 0 || made[op.booking] != i ? .repeated : .reserved
            b.start = p.starts[Int(op.cell)]
            b.limit = Int32(clamping: p.rules.policy.limit(for: UserID(op.user)))
        case (.reschedule, -1):
            // Only a move to another cell changes anything (see ``movedFrom``).
            guard movedFrom[i] != nil else { return nil }
            b.kind = .moved
            b.start = p.starts[Int(op.cell)]
            b.limit = Int32(clamping: p.rules.policy.limit(for: UserID(op.user)))
        case (.reserve, -2), (.cancel, -2), (.query, _), (.change, _), (.hold, _), (.releaseHold, _),
            (.reschedule, _), (.anySocket, _), (.checkIn, _):
            return nil
        case (.confirm, _): b.kind = .refusedOther
        case (.reserve, let code):
            switch Reasons.all[Int(code)] {
            case .slotTaken: b.kind = .refusedTaken
            case .userLimitReached:
                // Holds and a no-show limit lower what a user may book: such a refusal says less.
                guard p.rules.policy.noShowLimit == nil, !holders.contains(op.user) else {
                    b.kind = .refusedOther
                    break
                }
                b.kind = .refusedLimit
                b.limit = Int32(clamping: p.rules.policy.limit(for: UserID(op.user)))
            default: b.kind = .refusedOther
            }
        case (.cancel, -1): b.kind = .released
        case (.cancel, let code):
            b.kind = Reasons.all[Int(code)] == .alreadyCancelled ? .refusedInactive : .neutral
        }
        return b
    }

    /// The cell a booking ended in: its last placement's.
    func lastCell(_ booking: UInt64, made: [UInt64: Int]) -> Int32 {
        if let last = placements[booking]?.last { return history[last].cell }
        return made[booking].map { history[$0].cell } ?? -1
    }

    /// One operation's place in a linearizability partition: the partition's key (a cell or a
    /// user) and the history index of the operation, or for a booking an availability change
    /// displaced, `-1 - k` for the *k*-th of ``Displacement``.
    struct PartitionEntry {
        var key: UInt64
        var index: Int32
    }

    /// A booking an accepted availability change displaced: a release in its slot's and its
    /// user's partitions, at the change's time; or, for `change` `-1 - i`, the booking reschedule
    /// `i` moved out of `cell`: a release in that cell's partition only.
    struct Displacement {
        var change: Int
        var booking: UInt64
        var cell: Int32
    }

    /// The booking operation of a partition entry, as the checker sees it.
    func bookingOperation(_ entry: PartitionEntry, displacements: [Displacement], made: [UInt64: Int])
        -> BookingOperation?
    {
        if entry.index < 0 {
            let d = displacements[Int(-1 - entry.index)]
            guard let m = made[d.booking] else { return nil }
            let op = history[d.change < 0 ? -1 - d.change : d.change]
            return BookingOperation(
                kind: .released, booking: d.booking, user: history[m].user, now: op.now, invoke: op.invoke,
                complete: op.complete)
        }
        let i = Int(entry.index)
        guard var b = operation(i, made: made) else { return nil }
        if history[i].kind == .cancel, made[b.booking] != nil {
            b.start = p.starts[Int(lastCell(b.booking, made: made))]
        }
        return b
    }

    /// The partition key of operation `i`: its slot's cell (`bySlot`) or its booking's owner;
    /// `nil` if it belongs to no partition of that kind.
    func partitionKey(_ i: Int, bySlot: Bool, made: [UInt64: Int]) -> UInt64? {
        guard let op = operation(i, made: made) else { return nil }
        let isCancel = history[i].kind == .cancel
        if bySlot {
            let cell = isCancel ? made[op.booking].map { _ in lastCell(op.booking, made: made) } : history[i].cell
            return cell.map { UInt64($0) }
        }
        let owner = isCancel ? made[op.booking].map { history[$0].user } : op.user
        // A cancel refused because the caller is not the owner says nothing about the owner's
        // state, nor does a cancel by another user.
        if isCancel, op.kind == .neutral || owner != op.user { return nil }
        return owner
    }

    /// I11: linearizability per slot, then per user, in key order. Each kind's partitions are
    /// gathered in batches of keys holding about ``partitionBatchSize`` operations (one pass over the
    /// history per batch), and checked one at a time, so only one batch of 16-byte entries and
    /// one partition's operations are held at once.
    /// - Complexity: O(n log n) to partition, plus O(n) per batch, plus the search in each partition.
    mutating func checkLinearizability(made: [UInt64: Int], budget: Int) {
        var displacements: [Displacement] = []
        for (i, op) in history.enumerated() where op.kind == .change && op.outcome == -1 {
            for id in op.displaced where made[id] != nil {
                displacements.append(Displacement(change: i, booking: id, cell: lastCell(id, made: made)))
            }
        }
        for (i, from) in movedFrom.sorted(by: { $0.key < $1.key }) {
            displacements.append(Displacement(change: -1 - i, booking: history[i].booking, cell: from))
        }
        var partitions = 0
        var unknown = 0
        var failing: String?
        for bySlot in [true, false] {
            var low: UInt64? = 0
            while let from = low {
                var (entries, upTo) = batchOfPartitions(from: from, bySlot: bySlot, made: made)
                low = upTo
                for (k, d) in displacements.enumerated() {
                    guard let m = made[d.booking] else { continue }
                    // A moved booking leaves its old cell in that cell's partition (by slot).
                    if d.change < 0, !bySlot { continue }
                    let key = bySlot ? UInt64(d.cell) : history[m].user
                    if key >= from, upTo.map({ key < $0 }) ?? true {
                        entries.append(PartitionEntry(key: key, index: Int32(-1 - k)))
                    }
                }
                // Within a partition: its own operations in history order, then the displacements.
                entries.sort {
                    ($0.key, $0.index < 0 ? 1 : 0, abs($0.index)) < ($1.key, $1.index < 0 ? 1 : 0, abs($1.index))
                }
                var start = 0
                while start < entries.count {
                    var end = start
                    while end < entries.count && entries[end].key == entries[start].key { end += 1 }
                    let ops = entries[start..<end].compactMap {
                        bookingOperation($0, displacements: displacements, made: made)
                    }
                    let key = entries[start].key
                    let first = max(0, Int(entries[start].index))
                    start = end
                    partitions += 1
                    let intervals = ops.map { ($0.invoke, $0.complete) }
                    let verdict =
                        bySlot
                        ? LinearizabilityChecker.check(SlotSpecification(ops), intervals: intervals, budget: budget)
                        : LinearizabilityChecker.check(UserSpecification(ops), intervals: intervals, budget: budget)
                    switch verdict {
                    case .linearizable: break
                    case .unknown: unknown += 1
                    case .notLinearizable:
                        guard failing == nil else { break }
                        let name = bySlot ? "\(p.slot(ofCell: Int32(truncatingIfNeeded: key)))" : "user \(key)"
                        failing = bySlot ? "slot \(name)" : name
                        violate(.I11, at: first, "the history of \(name) is not linearizable")
                    }
                }
            }
        }
        linearizability = .init(
            status: failing != nil ? "not linearizable" : unknown > 0 ? "unknown" : "linearizable",
            partitions: partitions, unknownPartitions: unknown, failingPartition: failing)
    }

    /// The history's entries whose partition key is at least `from`, up to a bound (returned; `nil`
    /// for none) below which they number about ``partitionBatchSize``, in history order.
    /// - Complexity: O(n + b log b) for b = ``partitionBatchSize``.
    func batchOfPartitions(from: UInt64, bySlot: Bool, made: [UInt64: Int]) -> ([PartitionEntry], UInt64?) {
        var entries: [PartitionEntry] = []
        var upTo: UInt64?
        var limit = 2 * partitionBatchSize
        for i in history.indices {
            guard let key = partitionKey(i, bySlot: bySlot, made: made), key >= from, upTo.map({ key < $0 }) ?? true
            else { continue }
            entries.append(PartitionEntry(key: key, index: Int32(i)))
            guard entries.count >= limit else { continue }
            // Too many: keep the smallest keys, whole partitions only.
            var keys = entries.map(\.key)
            keys.sort()
            var cut = partitionBatchSize
            if keys[cut] == keys[0] {
                while cut < keys.count && keys[cut] == keys[0] { cut += 1 }
            }
            guard cut < keys.count else {
                // One partition holds them all: it is one batch by itself.
                limit = 2 * entries.count
                continue
            }
            let bound = keys[cut]
            upTo = bound
            entries.removeAll { $0.key >= bound }
        }
        return (entries, upTo)
    }

    func report(threads: Int, elapsed: Double, operations: Int) -> Report {
        var refused: [Rejection.Reason: Int] = [:]
        var accepted = 0
        var cancelled = 0
        var repeats = 0
        var queries = 0
        var changes = 0
        var displaced = 0
        var attempts: [Int32: (Int, Int)] = [:]
        var latencies = Latencies()
        var lifecycle = Report.Lifecycle()
        lifecycle.checkedIn = history.contains { $0.kind == .checkIn } ? firstCheckIns().count : 0
        for (i, op) in history.enumerated() {
            if let r = op.reason { refused[r, default: 0] += 1 }
            // Resolved indeterminate operations count as what the client saw: an error.
            guard !op.resolvedIndeterminate else { continue }
            latencies.add(op.complete - op.invoke)
            switch op.kind {
            case .reserve:
                if op.repeatOf != 0 { repeats += 1 }
                if op.outcome == -1 && op.repeatOf == 0 { accepted += 1 }
                var a = attempts[op.cell] ?? (0, 0)
                a.0 += 1
                if op.outcome == -1 && op.repeatOf == 0 { a.1 += 1 }
                attempts[op.cell] = a
            case .cancel: if op.outcome == -1 { cancelled += 1 }
            case .hold: if op.outcome == -1 { lifecycle.holds += 1 }
            case .confirm: if op.outcome == -1, placements[op.booking]?.first == i { lifecycle.confirmed += 1 }
            case .releaseHold: if op.outcome == -1 { lifecycle.releasedHolds += 1 }
            case .reschedule: if movedFrom[i] != nil { lifecycle.rescheduled += 1 }
            case .anySocket: if op.outcome == -1, placements[op.booking]?.first == i { lifecycle.anySocket += 1 }
            case .checkIn: break
            case .query: queries += 1
            case .change:
                changes += 1
                displaced += op.displaced.count
            }
        }
        let ranks = [0.5, 0.99].map { min(latencies.count - 1, Int(Double(latencies.count) * $0)) }
        let values = latencies.values(
            at: ranks, rereading: history.lazy.filter { !$0.resolvedIndeterminate }.map { $0.complete - $0.invoke })
        func percentile(_ k: Int) -> Double? { latencies.count == 0 ? nil : Double(values[k]) / 1_000 }
        var contention: Report.Contention?
        if let best = attempts.keys.sorted().max(by: { (attempts[$0]?.0 ?? 0, $1) < (attempts[$1]?.0 ?? 0, $0) }),
            let (n, ok) = attempts[best]
        {
            let ops = history.filter { $0.cell == best }
            contention = .init(
                slot: p.slot(ofCell: best).description, attempts: n, accepted: ok, concurrent: Self.maxOverlap(ops),
                inFlight: Self.maxOverlap(history))
        }
        let wanted = Set(p.scenario.expectations?.invariants ?? Invariant.allCases.map(\.rawValue))
        let invariants = Invariant.allCases.enumerated().map { i, inv in
            Report.InvariantResult(
                id: inv.rawValue, name: inv.name,
                status: inv == .I10 || !wanted.contains(inv.rawValue)
                    ? "not checked" : (violations[i] > 0 ? "fail" : "pass"),
                violations: violations[i])
        }
        let reasons = refused.map { Report.ReasonCount(reason: $0.key.rawValue, count: $0.value) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
        let ops = operations
        var report = Report(
            scenario: p.scenario.name, file: p.file, seed: p.scenario.seed, mode: "threads", threads: threads,
            steps: p.steps.count, operations: ops, accepted: accepted, refused: refused.values.reduce(0, +),
            refusedByReason: reasons, cancelled: cancelled, displaced: displaced, repeats: repeats, queries: queries,
            availabilityChanges: changes, peakContention: contention, invariants: invariants,
            linearizability: linearizability, expectations: [], failures: failures,
            timing: .init(
                seconds: elapsed, operationsPerSecond: elapsed > 0 ? Double(ops) / elapsed : 0,
                p50Microseconds: percentile(0), p99Microseconds: percentile(1)),
            provenance: p.scenario.provenance, attribution: p.scenario.attribution, verdict: "pass",
            indeterminate: indeterminate.total > 0 ? indeterminate : nil)
        report.lifecycle = lifecycle.orNil
        return report
    }

    /// The most operations in flight at once (a call completing when another is invoked counts
    /// as finished first).
    ///
    /// In invoke order (as a history is), the completions of the calls started are kept in a heap
    /// and those at or before each invoke time taken out, so memory follows the calls in flight;
    /// in any other order both times are sorted.
    /// - Complexity: O(n log k) for k in flight at once, or O(n log n) and 16 bytes per operation.
    static func maxOverlap<C: Collection<TimedOperation>>(_ ops: C) -> Int {
        let inInvokeOrder =
            zip(ops, ops.dropFirst()).allSatisfy { $0.invoke <= $1.invoke }
            && ops.allSatisfy { $0.invoke <= $0.complete }
        guard inInvokeOrder else {
            let invokes = ops.map(\.invoke).sorted()
            let completes = ops.map(\.complete).sorted()
            var finished = 0
            var best = 0
            for (started, time) in invokes.enumerated() {
                while finished < completes.count && completes[finished] <= time { finished += 1 }
                best = max(best, started + 1 - finished)
            }
            return best
        }
        // Calls invoked at one time are counted together: a completion at that time, by any of
        // them, counts as finished first.
        var pending = MinHeap()
        var started = 0
        var finished = 0
        var best = 0
        var rest = ops[...]
        while let time = rest.first?.invoke {
            while let op = rest.first, op.invoke == time {
                pending.insert(op.complete)
                started += 1
                rest = rest.dropFirst()
            }
            while let next = pending.min, next <= time {
                pending.removeMin()
                finished += 1
            }
            best = max(best, started - finished)
        }
        return best
    }

}

/// Latencies counted by bucket (their top 9 significant bits and their magnitude), so exact
/// percentiles need no list of them: a value at a given rank is found by a second pass that keeps
/// only the latencies of its bucket (values within 1/256 of each other).
struct Latencies {
    /// Counts of latencies in 0..<2^32 ns by ``bucket(_:)``.
    private var buckets = [Int](repeating: 0, count: 24 * 512)
    /// Those below 0 and those of 2^32 ns (4.29 s) or more, kept whole (few).
    private var below: [Int64] = []
    private var above: [Int64] = []
    private(set) var count = 0

    /// Buckets in the order of their values: a value below 512 is its own; above, the top 9
    /// significant bits and how far they were shifted.
    static func bucket(_ value: UInt32) -> Int {
        guard value >= 512 else { return Int(value) }
        let shift = 32 - value.leadingZeroBitCount - 9
        return shift << 9 | Int(value >> shift)
    }

    mutating func add(_ nanoseconds: Int64) {
        count += 1
        if let value = UInt32(exactly: nanoseconds) {
            buckets[Self.bucket(value)] += 1
        } else if nanoseconds < 0 {
            below.append(nanoseconds)
        } else {
            above.append(nanoseconds)
        }
    }

    /// The latencies at `ranks` (0-based, in ascending order of latency) of the values added,
    /// which `again` must give once more, in any order.
    /// - Complexity: O(n + m log m) for m latencies in the buckets of the ranks.
    func values(at ranks: [Int], rereading again: some Sequence<Int64>) -> [Int64] {
        let below = below.sorted()
        let above = above.sorted()
        let inRange = count - below.count - above.count
        // Per rank: a value already known, or (bucket, rank within it).
        var known = [Int64?](repeating: nil, count: ranks.count)
        var wanted = [(bucket: Int, rank: Int)](repeating: (0, 0), count: ranks.count)
        for (k, rank) in ranks.enumerated() where rank >= 0 {
            if rank < below.count {
                known[k] = below[rank]
            } else if rank - below.count >= inRange {
                known[k] = above[rank - below.count - inRange]
            } else {
                var rest = rank - below.count
                var bucket = 0
                while rest >= buckets[bucket] {
                    rest -= buckets[bucket]
                    bucket += 1
                }
                wanted[k] = (bucket, rest)
            }
        }
        let needed = Set(ranks.indices.filter { known[$0] == nil && ranks[$0] >= 0 }.map { wanted[$0].bucket })
        guard !needed.isEmpty else { return known.map { $0 ?? 0 } }
        var members: [Int: [UInt32]] = [:]
        for nanoseconds in again {
            if let value = UInt32(exactly: nanoseconds), needed.contains(Self.bucket(value)) {
                members[Self.bucket(value), default: []].append(value)
            }
        }
        for bucket in needed { members[bucket]?.sort() }
        return ranks.indices.map { k in
            if let value = known[k] { return value }
            let list = members[wanted[k].bucket] ?? []
            return list.indices.contains(wanted[k].rank) ? Int64(list[wanted[k].rank]) : 0
        }
    }
}

/// A binary min-heap of times.
struct MinHeap {
    private var items: [Int64] = []

    var min: Int64? { items.first }

    mutating func insert(_ value: Int64) {
        items.append(value)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeMin() {
        guard !items.isEmpty else { return }
        items.swapAt(0, items.count - 1)
        items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left] < items[smallest] { smallest = left }
            if right < items.count && items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
