import Foundation
import SlotScheduler

struct DeterministicRun {
    /// The run's state of one cell (socket × date × hour).
    struct Cell {
        let ref: SlotRef
        var attempts: Int32 = 0
        var accepted: Int32 = 0
        /// Whether a cancel or displacement ever freed it (a refusal of it as taken is then I6).
        var freed = false
    }

    let p: PreparedScenario
    let options: RunOptions
    let history: HistoryWriter?
    var format: HistoryFormat
    var ledger: Ledger
    var model: ReferenceModel
    var rng: SplitMix64
    var ring = [OpRecord](repeating: OpRecord(), count: 16)
    var seq = 0
    var operationsDone = 0
    var accepted = 0
    var refused = [Int](repeating: 0, count: Reasons.all.count)
    var cancelled = 0
    var displaced = 0
    var repeats = 0
    var queries = 0
    var changes = 0
    /// Per cell: its interned slot and reservation counts, in one array so that a reservation
    /// touches one cache line of the run's cell state.
    var cells: [Cell]
    var violations = [Int](repeating: 0, count: Invariant.allCases.count)
    var failures: [Report.Failure] = []
    var expectationResults: [Report.ExpectationResult] = []
    var stopped = false
    /// Recent accepted requests with a request id: user, id, cell, booking.
    var requests: [(user: UInt64, id: RequestID, cell: Int32, booking: UInt64)] = []
    /// The cell of each booking the model holds (model index = booking id - 1).
    var bookingCell: [Int32] = []
    /// Per user: the active bookings the workload's cancels draw from, in the order they were
    /// made; a user's ended bookings are dropped when the list reaches the user's limit at a
    /// reservation that got as far as the limit check.
    var drawable: [UInt64: [Int32]] = [:]
    var stepBookings: [Int: UInt64] = [:]
    /// The label of each booking a labelled reserve step made, for `expectDisplaced`: kept as the
    /// steps run, not rebuilt per step.
    var labelOf: [UInt64: String] = [:]
    /// Users who recently got a booking: cancels pick among them, so cancellations and rebookings happen.
    var recentBookers = [UInt64](repeating: 0, count: 256)
    var recentCount = 0

    init(_ p: PreparedScenario, options: RunOptions, history: HistoryWriter?) {
        self.p = p
        self.options = options
        self.history = history
        format = HistoryFormat(p)
        ledger = Ledger(rules: p.rules, journaling: false, expectedUsers: min(p.userCount, 1 << 22))
        model = ReferenceModel(
            stations: p.rules.catalog.stations, policy: p.rules.policy, clock: CatalogClock(p.rules.catalog))
        rng = SplitMix64(seed: p.scenario.seed)
        cells = p.refs.map { Cell(ref: $0) }
    }

    // MARK: Recording

    @inline(__always)
    mutating func record(_ r: OpRecord) {
        ring[r.seq & 15] = r
        if let history { history.write(format.line(r)) }
    }

    mutating func violate(_ invariant: Invariant, _ message: String) {
        violations[Invariant.allCases.firstIndex(of: invariant) ?? 0] += 1
        if failures.count < 20 {
            var nearby: [String] = []
            for s in max(0, seq - 7)...seq where ring[s & 15].seq == s { nearby.append(format.text(ring[s & 15])) }
            failures.append(
                Report.Failure(
                    invariant: "\(invariant.rawValue) \(invariant.name)", seq: seq, message: message, nearby: nearby,
                    reproduce: options.reproduce))
        }
        if options.stopAtFirstFailure { stopped = true }
    }

    func invariantFor(_ expected: Rejection.Reason) -> Invariant {
        switch expected {
        case .slotTaken: .I1
        case .userLimitReached: .I2
        case .slotInPast, .tooSoon, .beyondHorizon: .I3
        case .nonexistentLocalTime, .socketClosed, .outsideOpeningHours: .I4
        case .conflictingRequestID: .I12
        default: .I10
        }
    }

    /// The model's index of the booking with ledger id `id` (the two number bookings alike).
    func modelIndex(of id: UInt64) -> Int32? {
        id >= 1 && id <= UInt64(bookingCell.count) ? Int32(id - 1) : nil
    }

    /// The model made (or followed the implementation in making) a booking of `cell`.
    mutating func commit(_ request: ReservationRequest, cell: Int32, start: Int64?, now: Int64) {
        model.commitReserve(request, start: start, at: Instant(secondsSinceEpoch: now))
        drawable[request.user.rawValue, default: []].append(Int32(bookingCell.count))
        bookingCell.append(cell)
    }

    /// The model ended booking `b` (cancelled or displaced): its cell was freed.
    mutating func ended(_ b: Int32) {
        let user = model.bookings[Int(b)].user.rawValue
        drawable[user]?.removeAll { $0 == b }
        cells[Int(bookingCell[Int(b)])].freed = true
    }

    /// Drops the user's ended bookings from the cancel draws once they fill the user's limit.
    mutating func pruneDrawable(_ userID: UInt64, now: Int64) {
        guard let list = drawable[userID], !list.isEmpty, list.count >= model.limit(for: UserID(userID)) else {
            return
        }
        drawable[userID] = list.filter {
            Booking.isUpcoming(start: model.bookings[Int($0)].start.secondsSinceEpoch, at: now)
        }
    }

    /// What the model says about a reservation, pruning the cancel draws as the rules look at
    /// the user's limit.
    mutating func decide(_ request: ReservationRequest, now: Int64) -> ReferenceModel.ReserveDecision {
        let decision = model.decideReserve(request, at: Instant(secondsSinceEpoch: now))
        switch decision {
        case .accept, .refuse(.userLimitReached): pruneDrawable(request.user.rawValue, now: now)
        default: break
        }
        return decision
    }

    /// Compares a reservation's outcome with the model's decision and updates the model.
    @inline(__always)
    mutating func judgeReserve(
        cell: Int32, request: ReservationRequest, now: Int64, decision: ReferenceModel.ReserveDecision,
        actual: Rejection.Reason?, booking: UInt64
    ) {
        let userID = request.user.rawValue
        cells[Int(cell)].attempts &+= 1
        if let actual {
            refused[Int(Reasons.code(actual))] += 1
        } else {
            accepted += 1
            cells[Int(cell)].accepted &+= 1
        }
        var expected: Rejection.Reason?
        var start: Int64?
        switch decision {
        case .accept(let s): start = s
        case .refuse(let reason): expected = reason
        case .repeatOf: expected = .conflictingRequestID
        }
        if expected == actual {
            if actual == nil {
                commit(request, cell: cell, start: start, now: now)
                recentBookers[recentCount & 255] = userID
                recentCount &+= 1
            }
            return
        }
        let slot = request.slot
        if let expected, actual == nil {
            violate(
                invariantFor(expected),
                "reservation of \(slot) by user \(userID) was accepted (booking \(booking)) but the rules say \(expected.rawValue)"
            )
            commit(ReservationRequest(slot: slot, user: request.user), cell: cell, start: nil, now: now)
        } else if let actual, expected == nil {
            let invariant: Invariant = actual == .slotTaken && cells[Int(cell)].freed ? .I6 : .I10
            violate(
                invariant,
                "reservation of \(slot) by user \(userID) was refused with \(actual.rawValue) but the slot was free and bookable"
            )
        } else {
            violate(
                .I10,
                "reservation of \(slot) by user \(userID) was refused with \(actual?.rawValue ?? "?") where the rules say \(expected?.rawValue ?? "?")"
            )
        }
    }

    // MARK: Commands

    @inline(__always)
    mutating func reserveFast(cell: Int32, userID: UInt64, now: Int64) {
        let ref = cells[Int(cell)].ref
        let request = ReservationRequest(slot: p.slot(ofCell: cell), user: UserID(userID))
        let decision = decide(request, now: now)
        let a = ledger.attempt(ref, for: UserID(userID), at: Instant(secondsSinceEpoch: now))
        let booking = a.booking?.rawValue ?? 0
        record(
            OpRecord(
                seq: seq, now: now, kind: .reserve, user: userID, cell: cell, booking: booking,
                outcome: Reasons.code(a.reason)))
        judgeReserve(cell: cell, request: request, now: now, decision: decision, actual: a.reason, booking: booking)
    }

    /// A reservation through the full API, with an optional request id. Returns the outcome.
    @discardableResult
    mutating func reserveSlow(cell: Int32, userID: UInt64, requestID: RequestID?, now: Int64, kind: OpRecord.Kind)
        -> (Rejection.Reason?, UInt64)
    {
        let request = ReservationRequest(slot: p.slot(ofCell: cell), user: UserID(userID), requestID: requestID)
        let decision = decide(request, now: now)
        var actual: Rejection.Reason?
        var booking: UInt64 = 0
        do {
            booking = try ledger.reserve(request, at: Instant(secondsSinceEpoch: now)).id.rawValue
        } catch {
            actual = error.reason
        }
        record(
            OpRecord(
                seq: seq, now: now, kind: kind, user: userID, cell: cell, booking: booking,
                outcome: Reasons.code(actual), detail: requestID.map { .requestID($0) } ?? .none))
        if case .repeatOf(let first) = decision {
            let repeatOf = first.id.rawValue
            repeats += 1
            if actual != nil || booking != repeatOf {
                violate(
                    .I12,
                    "repeating request \(requestID?.rawValue ?? "") gave \(actual?.rawValue ?? "booking \(booking)") instead of booking \(repeatOf)"
                )
            }
            return (actual, booking)
        }
        judgeReserve(cell: cell, request: request, now: now, decision: decision, actual: actual, booking: booking)
        if actual == nil, let requestID, case .accept = decision {
            if requests.count < 64 {
                requests.append((userID, requestID, cell, booking))
            } else {
                requests[rng.below(64)] = (userID, requestID, cell, booking)
            }
        }
        return (actual, booking)
    }

    @discardableResult
    mutating func cancel(_ b: Int32, by userID: UInt64, now: Int64, kind: OpRecord.Kind = .cancel) -> Rejection.Reason?
    {
        let id = UInt64(b) + 1
        let at = Instant(secondsSinceEpoch: now)
        let expected = model.decideCancel(BookingID(id), by: UserID(userID), at: at)
        let cell = bookingCell[Int(b)]
        var actual: Rejection.Reason?
        do { try ledger.cancel(BookingID(id), by: UserID(userID), at: at) } catch {
            actual = error.reason
        }
        record(
            OpRecord(
                seq: seq, now: now, kind: kind, user: userID, cell: cell, booking: id, outcome: Reasons.code(actual)))
        if let actual { refused[Int(Reasons.code(actual))] += 1 } else { cancelled += 1 }
        if expected == nil, actual == nil {
            model.commitCancel(BookingID(id))
            ended(b)
            if ledger.status(of: cells[Int(cell)].ref, at: at) == .booked {
                violate(
                    .I6,
                    "booking \(id) of \(p.slot(ofCell: cell)) was cancelled by its owner but the slot is still booked")
            }
            return nil
        }
        let slot = p.slot(ofCell: cell)
        switch (expected, actual) {
        case (nil, nil): break
        case (let e?, nil):
            violate(
                e == .notOwner ? .I6 : .I10,
                "cancel of booking \(id) (\(slot)) by user \(userID) was accepted but the rules say \(e.rawValue)")
            model.commitCancel(BookingID(id))
            ended(b)
        case (nil, let a?):
            violate(.I10, "cancel of booking \(id) (\(slot)) by its owner was refused with \(a.rawValue)")
        case (let e?, let a?) where e != a:
            violate(
                .I10,
                "cancel of booking \(id) (\(slot)) was refused with \(a.rawValue) where the rules say \(e.rawValue)")
        default: break
        }
        return actual
    }

    mutating func query(cell: Int32, now: Int64, userID: UInt64) -> SlotStatus? {
        queries += 1
        let expected = model.status(of: p.slot(ofCell: cell), at: Instant(secondsSinceEpoch: now))
        // The interned query: the cell's `SlotRef` was resolved from its `Slot` when the scenario
        // was prepared, so this asks the same question as `status(of: Slot, at:)` without strings.
        let actual: SlotStatus? = ledger.status(of: cells[Int(cell)].ref, at: Instant(secondsSinceEpoch: now))
        record(
            OpRecord(seq: seq, now: now, kind: .query, user: userID, cell: cell, outcome: -1, detail: .status(actual)))
        if actual != expected {
            violate(
                .I10,
                "status of \(p.slot(ofCell: cell)) is \(actual?.rawValue ?? "an error") but the model says \(expected?.rawValue ?? "an error")"
            )
        }
        return actual
    }

    @discardableResult
    mutating func change(_ change: AvailabilityChange, rule: DisplacementRule, now: Int64, userID: UInt64 = 0)
        -> (Rejection.Reason?, [UInt64])
    {
        changes += 1
        let decision = model.decideChange(change, rule: rule)
        var actual: Rejection.Reason?
        var moved: [Booking] = []
        do {
            moved = try ledger.changeAvailability(change, onBookings: rule, at: Instant(secondsSinceEpoch: now))
        } catch {
            actual = error.reason
        }
        let ids = moved.map(\.id.rawValue)
        record(
            OpRecord(
                seq: seq, now: now, kind: .change, user: userID, outcome: Reasons.code(actual),
                detail: .text(
                    change.description + (rule == .refuse ? " (refuse)" : "")
                        + (ids.isEmpty ? "" : "; displaced " + ids.map(String.init).joined(separator: ",")))))
        if let actual { refused[Int(Reasons.code(actual))] += 1 }
        let expected: [Int]
        switch decision {
        case .failure(.slotHasBookings):
            if actual != .slotHasBookings {
                let inTheWay = model.decideChange(change, rule: .displace)
                let count = if case .success(let list) = inTheWay { list.count } else { 0 }
                violate(
                    .I9,
                    "\(change) under refuse had \(count) bookings in the way but gave \(actual?.rawValue ?? "acceptance")"
                )
            }
            return (actual, [])
        case .failure(let reason):
            if actual != reason {
                violate(
                    .I10, "\(change) gave \(actual?.rawValue ?? "acceptance") where the rules say \(reason.rawValue)")
            }
            return (actual, [])
        case .success(let list): expected = list.sorted()
        }
        if let actual {
            violate(.I10, "\(change) was refused with \(actual.rawValue)")
            return (actual, [])
        }
        displaced += ids.count
        let got = ids.compactMap { modelIndex(of: $0).map(Int.init) }.sorted()
        if got != expected || got.count != ids.count {
            let want = expected.map { String($0 + 1) }.joined(separator: ",")
            violate(
                .I9,
                "\(change) displaced bookings [\(ids.map(String.init).joined(separator: ","))] but the bookings in closed hours were [\(want)]"
            )
        }
        model.commitChange(change, displacing: expected)
        for b in expected { ended(Int32(b)) }
        return (nil, ids)
    }

    // MARK: The run

    mutating func execute() {
        let start = p.scenario.clock.start.instant.secondsSinceEpoch
        for change in p.scenario.overrides ?? [] {
            _ = try? ledger.changeAvailability(change, at: Instant(secondsSinceEpoch: start))
            model.commitChange(change, displacing: [])
        }
        for (i, step) in p.steps.enumerated() where !stopped {
            runStep(i, step)
            seq += 1
        }
        if let w = p.scenario.workload, !stopped {
            runWorkload(w)
        } else {
            finishTimeline(from: 0, now: p.workloadStart)
        }
        reconcile()
    }

    mutating func expectStep(_ i: Int, _ step: PreparedScenario.CompiledStep, got: String) {
        guard let want = step.step.expect else { return }
        let what = "steps[\(i)] \(step.step.op.rawValue)" + (step.step.note.map { " (\($0))" } ?? "")
        expectationResults.append(.init(what: what, expected: want, actual: got, pass: want == got))
        if want != got, failures.count < 20 {
            var nearby: [String] = []
            for s in max(0, seq - 7)...seq where ring[s & 15].seq == s { nearby.append(format.text(ring[s & 15])) }
            failures.append(
                .init(
                    invariant: "expectation", seq: seq, message: "\(what): expected \(want), got \(got)",
                    nearby: nearby, reproduce: options.reproduce))
        }
    }

    mutating func runStep(_ i: Int, _ step: PreparedScenario.CompiledStep) {
        switch step.step.op {
        case .reserve:
            let (reason, booking) = reserveSlow(
                cell: step.cell, userID: step.user, requestID: step.step.requestID, now: step.now, kind: .step)
            if reason == nil {
                stepBookings[i] = booking
                if let label = step.step.label, labelOf[booking] == nil { labelOf[booking] = label }
            }
            expectStep(i, step, got: reason?.rawValue ?? "accepted")
        case .cancel:
            guard let booking = stepBookings[step.target], let b = modelIndex(of: booking) else {
                record(
                    OpRecord(
                        seq: seq, now: step.now, kind: .cancel, user: step.user, outcome: Reasons.code(.unknownBooking))
                )
                refused[Int(Reasons.code(.unknownBooking))] += 1
                expectStep(i, step, got: Rejection.Reason.unknownBooking.rawValue)
                return
            }
            let reason = cancel(b, by: step.user, now: step.now, kind: .cancel)
            expectStep(i, step, got: reason?.rawValue ?? "accepted")
        case .query:
            let status = query(cell: step.cell, now: step.now, userID: step.user)
            expectStep(i, step, got: status?.rawValue ?? "error")
        case .changeAvailability:
            guard let c = step.change else { return }
            let (reason, ids) = change(c, rule: step.step.onBookings ?? .displace, now: step.now, userID: step.user)
            expectStep(i, step, got: reason?.rawValue ?? "accepted")
            if let labels = step.step.expectDisplaced {
                let got = ids.map { labelOf[$0] ?? "booking \($0)" }.sorted()
                let want = labels.sorted()
                let what = "steps[\(i)] displaced"
                expectationResults.append(
                    .init(
                        what: what, expected: "[" + want.joined(separator: ", ") + "]",
                        actual: "[" + got.joined(separator: ", ") + "]", pass: got == want))
                if got != want, failures.count < 20 {
                    failures.append(
                        .init(
                            invariant: "expectation", seq: seq,
                            message:
                                "\(what): expected [\(want.joined(separator: ", "))], got [\(got.joined(separator: ", "))]",
                            nearby: [], reproduce: options.reproduce))
                }
            }
        }
    }

    mutating func runWorkload(_ w: Workload) {
        let reserveW = w.mix.reserve
        let cancelW = reserveW + (w.mix.cancel ?? 0)
        let queryW = cancelW + (w.mix.query ?? 0)
        let changeW = queryW + (w.mix.availability ?? 0)
        let total = changeW + (w.mix.retry ?? 0)
        let hotShare = p.hot.isEmpty ? 0 : (w.hotness?.share ?? 0)
        let hotThreshold = UInt64(hotShare * 0x1p53)
        let step = p.scenario.clock.stepSeconds
        let perStep = p.scenario.clock.operationsPerStep ?? 1
        let users = p.userCount
        let firstUser = p.firstUser
        let candidates = CandidateGrid(p) ?? CandidateGrid(list: p.candidates)
        let hot = p.hot
        var now = p.workloadStart
        var untilTick = perStep
        var nextChange = 0
        var progress = Progress(enabled: options.progress, total: w.operations)
        var op = 0
        while op < w.operations && !stopped {
            while nextChange < p.timeline.count && p.timeline[nextChange].atOperation <= op {
                let c = p.timeline[nextChange]
                change(c.change, rule: c.rule, now: now)
                seq += 1
                nextChange += 1
            }
            let roll = total > 0 ? rng.below(total) : 0
            var userID = firstUser &+ UInt64(rng.below(users))
            if roll < reserveW {
                let cell =
                    (rng.next() >> 11) < hotThreshold
                    ? hot[rng.below(hot.count)] : candidates[rng.below(candidates.count)]
                reserveFast(cell: cell, userID: userID, now: now)
            } else if roll < cancelW {
                if recentCount > 0 { userID = recentBookers[rng.below(min(recentCount, 256))] }
                let list = drawable[userID] ?? []
                if rng.below(8) == 0 {
                    // Someone else's booking: must be refused (notOwner) and change nothing.
                    let other = drawable[firstUser &+ UInt64(rng.below(users))] ?? []
                    if let b = other.isEmpty ? nil : other[rng.below(other.count)],
                        model.bookings[Int(b)].user.rawValue != userID
                    {
                        cancel(b, by: userID, now: now)
                    } else {
                        record(
                            OpRecord(
                                seq: seq, now: now, kind: .cancel, user: userID, outcome: -1,
                                detail: .nothingToCancel))
                    }
                } else if !list.isEmpty {
                    cancel(list[rng.below(list.count)], by: userID, now: now)
                } else {
                    record(
                        OpRecord(
                            seq: seq, now: now, kind: .cancel, user: userID, outcome: -1, detail: .nothingToCancel))
                }
            } else if roll < queryW {
                _ = query(cell: candidates[rng.below(candidates.count)], now: now, userID: userID)
            } else if roll < changeW {
                let slot = p.slot(ofCell: candidates[rng.below(candidates.count)])
                let hours: HourSet?
                switch rng.below(4) {
                case 0, 1: hours = .closed
                case 2: hours = HourSet(mask: UInt32(truncatingIfNeeded: rng.next()))
                default: hours = nil
                }
                let rule: DisplacementRule = rng.below(4) == 0 ? .refuse : .displace
                change(
                    AvailabilityChange(station: slot.station, socket: slot.socket, date: slot.date, hours: hours),
                    rule: rule,
                    now: now, userID: userID)
            } else {
                if !requests.isEmpty, rng.below(2) == 0 {
                    let r = requests[rng.below(requests.count)]
                    let cell = rng.below(4) == 0 ? candidates[rng.below(candidates.count)] : r.cell
                    reserveSlow(cell: cell, userID: r.user, requestID: r.id, now: now, kind: .retry)
                } else {
                    let cell = candidates[rng.below(candidates.count)]
                    reserveSlow(cell: cell, userID: userID, requestID: RequestID("r\(seq)"), now: now, kind: .retry)
                }
            }
            seq += 1
            op += 1
            untilTick -= 1
            if untilTick == 0 {
                untilTick = perStep
                now &+= step
            }
            if op & 0xFFFF == 0 { progress.tick(op) }
        }
        operationsDone = op
        progress.end()
        finishTimeline(from: nextChange, now: now)
    }

    /// The timeline changes not yet made: those at `atOperation == workload.operations`, or every
    /// change of a scenario without a workload. Made after the workload, as threads mode makes them.
    mutating func finishTimeline(from next: Int, now: Int64) {
        for c in p.timeline[next...] where !stopped {
            change(c.change, rule: c.rule, now: now)
            seq += 1
        }
    }

    /// End-of-run checks of the whole state against the model.
    mutating func reconcile() {
        guard !stopped else { return }
        let want = model.activeCount
        let got = ledger.activeBookingCount
        if want != got {
            violate(
                .I5,
                "the scheduler holds \(got) active bookings but the accepted, cancelled and displaced commands leave \(want): a refused or reported command changed the state"
            )
        }
    }

    func report() -> Report {
        var reasons: [Report.ReasonCount] = []
        for (i, n) in refused.enumerated() where n > 0 {
            reasons.append(.init(reason: Reasons.all[i].rawValue, count: n))
        }
        reasons.sort { ($0.count, $1.reason) > ($1.count, $0.reason) }
        var contention: Report.Contention?
        if let best = cells.indices.max(by: { (cells[$0].attempts, $1) < (cells[$1].attempts, $0) }),
            cells[best].attempts > 0
        {
            contention = .init(
                slot: p.slot(ofCell: Int32(best)).description, attempts: Int(cells[best].attempts),
                accepted: Int(cells[best].accepted))
        }
        let wanted = Set((p.scenario.expectations?.invariants ?? Invariant.allCases.map(\.rawValue)))
        let invariants = Invariant.allCases.enumerated().map { i, inv in
            Report.InvariantResult(
                id: inv.rawValue, name: inv.name,
                status: inv == .I11 || !wanted.contains(inv.rawValue)
                    ? "not checked" : (violations[i] > 0 ? "fail" : "pass"),
                violations: violations[i])
        }
        var report = Report(
            scenario: p.scenario.name, file: p.file, seed: p.scenario.seed, mode: "deterministic", threads: nil,
            steps: p.steps.count, operations: operationsDone, accepted: accepted, refused: refused.reduce(0, +),
            refusedByReason: reasons, cancelled: cancelled, displaced: displaced, repeats: repeats, queries: queries,
            availabilityChanges: changes, peakContention: contention, invariants: invariants,
            linearizability: .init(status: "sequential", partitions: 0, unknownPartitions: 0, failingPartition: nil),
            expectations: expectationResults, failures: failures, timing: nil, provenance: p.scenario.provenance,
            attribution: p.scenario.attribution, verdict: "pass")
        report.finish(expectations: p.scenario.expectations)
        return report
    }
}
