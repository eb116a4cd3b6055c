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
    /// The cell of each booking the model holds (model index = booking id - 1).
    var bookingCell: [Int32] = []
    /// What the workload's cancels and retries draw from. A user's bookings there are the
    /// model's active ones; the ended ones are dropped when the list reaches the user's limit
    /// at a reservation that got as far as the limit check.
    var pools = DrawPools()
    var lifecycle = Report.Lifecycle()
    /// The scripted steps' bookings, labels and expectations.
    var script: ScriptedSteps

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
        script = ScriptedSteps(p)
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
        case .slotHeld: .I15
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
        bookingCell.append(cell)
        pools.add(UInt64(bookingCell.count), of: request.user.rawValue, cell: cell)
    }

    /// The model ended booking `b` (cancelled or displaced): its cell was freed.
    mutating func ended(_ b: Int32) {
        pools.remove(UInt64(b) + 1, of: model.bookings[Int(b)].user.rawValue)
        cells[Int(bookingCell[Int(b)])].freed = true
    }

    /// Drops the user's ended bookings from the cancel draws once they fill the user's limit.
    mutating func pruneDrawable(_ userID: UInt64, now: Int64) {
        guard let list = pools.bookings[userID], !list.isEmpty, list.count >= model.limit(for: UserID(userID))
        else { return }
        pools.bookings[userID] = list.filter {
            ModelRules.isUpcoming(start: model.bookings[Int($0 - 1)].start.secondsSinceEpoch, at: now)
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
                pools.noteBooker(userID)
            }
            return
        }
        let slot = request.slot
        if let expected, actual == nil {
            // Refused at a limit the user's recent no-shows lowered: I19.
            let lowered =
                expected == .userLimitReached
                && model.limit(for: request.user, at: now) < model.limit(for: request.user)
            violate(
                lowered ? .I19 : invariantFor(expected),
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
    mutating func reserveSlow(
        cell: Int32, userID: UInt64, requestID: RequestID?, reminder: Duration? = nil, now: Int64, kind: OpRecord.Kind
    ) -> (Rejection.Reason?, UInt64) {
        let request = ReservationRequest(
            slot: p.slot(ofCell: cell), user: UserID(userID), requestID: requestID, reminder: reminder)
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
            pools.remember(.init(user: userID, id: requestID, cell: cell, booking: booking), rng: &rng)
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

    /// Runs scripted step `i` through the shared ``ScriptedSteps`` and checks its expectations;
    /// a missed one is a failure with the operations around it.
    mutating func runStep(_ i: Int, _ step: PreparedScenario.CompiledStep) {
        guard let command = script.command(step) else { return }
        let result = runStep(command, step)
        for r in script.finish(i, step, result) {
            expectationResults.append(r)
            guard !r.pass, failures.count < 20 else { continue }
            var nearby: [String] = []
            if r.what != "steps[\(i)] displaced" {
                for s in max(0, seq - 7)...seq where ring[s & 15].seq == s { nearby.append(format.text(ring[s & 15])) }
            }
            failures.append(
                .init(
                    invariant: "expectation", seq: seq, message: "\(r.what): expected \(r.expected), got \(r.actual)",
                    nearby: nearby, reproduce: options.reproduce))
        }
    }

    /// Runs one step's command against the ledger and the model.
    mutating func runStep(_ command: StepCommand, _ step: PreparedScenario.CompiledStep) -> StepResult {
        switch command {
        case .reserve(let request, let cell, _):
            let (reason, booking) = reserveSlow(
                cell: cell, userID: step.user, requestID: request.requestID, reminder: request.reminder, now: step.now,
                kind: .step)
            return StepResult(got: reason?.rawValue ?? "accepted", booking: booking)
        case .cancel(let booking):
            guard let booking, let b = modelIndex(of: booking) else {
                record(
                    OpRecord(
                        seq: seq, now: step.now, kind: .cancel, user: step.user, outcome: Reasons.code(.unknownBooking))
                )
                refused[Int(Reasons.code(.unknownBooking))] += 1
                return StepResult(got: Rejection.Reason.unknownBooking.rawValue)
            }
            let reason = cancel(b, by: step.user, now: step.now, kind: .cancel)
            return StepResult(got: reason?.rawValue ?? "accepted")
        case .query(let cell):
            let status = query(cell: cell, now: step.now, userID: step.user)
            return StepResult(got: status?.rawValue ?? "error")
        case .change(let c, let rule):
            let (reason, ids) = change(c, rule: rule, now: step.now, userID: step.user)
            return StepResult(got: reason?.rawValue ?? "accepted", displaced: ids)
        case .hold(_, let cell):
            return StepResult(got: hold(cell: cell, userID: step.user, now: step.now)?.rawValue ?? "accepted")
        case .confirm(_, let cell):
            let (reason, booking) = confirm(cell: cell, userID: step.user, now: step.now)
            return StepResult(got: reason?.rawValue ?? "accepted", booking: booking)
        case .releaseHold(_, let cell):
            return StepResult(got: releaseHold(cell: cell, userID: step.user, now: step.now)?.rawValue ?? "accepted")
        case .reschedule(let booking, _, let cell, let requestID):
            guard let booking else {
                record(
                    OpRecord(
                        seq: seq, now: step.now, kind: .reschedule, user: step.user,
                        outcome: Reasons.code(.unknownBooking)))
                refused[Int(Reasons.code(.unknownBooking))] += 1
                return StepResult(got: Rejection.Reason.unknownBooking.rawValue)
            }
            let reason = reschedule(booking: booking, to: cell, userID: step.user, requestID: requestID, now: step.now)
            return StepResult(got: reason?.rawValue ?? "accepted")
        case .anySocket(let request):
            let (reason, booking) = reserveAny(request, now: step.now)
            return StepResult(got: reason?.rawValue ?? "accepted", booking: booking)
        case .checkIn(let booking, let code):
            let reason = checkIn(booking: booking ?? 0, userID: step.user, accessCode: code, now: step.now)
            return StepResult(got: reason?.rawValue ?? "accepted")
        case .checkOut(let booking, let place):
            let reason = checkOut(booking: booking ?? 0, userID: step.user, leftAt: place, now: step.now)
            return StepResult(got: reason?.rawValue ?? "accepted")
        }
    }

    mutating func runWorkload(_ w: Workload) {
        guard let draw = WorkloadDraw(p) else { return }
        var nextChange = 0
        var progress = Progress(enabled: options.progress, total: w.operations)
        var op = 0
        while op < w.operations && !stopped {
            let now = draw.now(at: op)
            while nextChange < p.timeline.count && p.timeline[nextChange].atOperation <= op {
                let c = p.timeline[nextChange]
                change(c.change, rule: c.rule, now: now)
                seq += 1
                nextChange += 1
            }
            run(draw.next(&rng, pools: pools), now: now)
            seq += 1
            op += 1
            if op & 0xFFFF == 0 { progress.tick(op) }
        }
        operationsDone = op
        progress.end()
        finishTimeline(from: nextChange, now: draw.now(at: op))
    }

    /// Runs one drawn workload operation and checks it against the model.
    mutating func run(_ operation: DrawnOperation, now: Int64) {
        switch operation {
        case .reserve(let cell, let user): reserveFast(cell: cell, userID: user, now: now)
        case .cancel(let booking, _, let user):
            if let b = modelIndex(of: booking) { cancel(b, by: user, now: now) }
        case .nothingToCancel(let user):
            record(OpRecord(seq: seq, now: now, kind: .cancel, user: user, outcome: -1, detail: .nothingToCancel))
        case .query(let cell, let user): _ = query(cell: cell, now: now, userID: user)
        case .change(let c, let rule, let user): change(c, rule: rule, now: now, userID: user)
        case .retry(let cell, let user, let earlier):
            reserveSlow(
                cell: cell, userID: user, requestID: earlier?.id ?? RequestID("r\(seq)"), now: now, kind: .retry)
        case .hold(let cell, let user): hold(cell: cell, userID: user, now: now)
        case .confirm(let cell, let user): confirm(cell: cell, userID: user, now: now)
        case .releaseHold(let cell, let user): releaseHold(cell: cell, userID: user, now: now)
        case .reschedule(let booking, _, let to, let user):
            reschedule(booking: booking, to: to, userID: user, requestID: nil, now: now)
        case .nothingToMove(let user):
            record(
                OpRecord(
                    seq: seq, now: now, kind: .reschedule, user: user, outcome: -1, detail: .text("nothing to move")))
        case .anySocket(let request, _): reserveAny(request, now: now)
        case .checkIn(let booking, _, let user, let code):
            checkIn(booking: booking, userID: user, accessCode: code, now: now)
        case .checkOut(let booking, _, let user, let place):
            checkOut(booking: booking, userID: user, leftAt: place, now: now)
        case .nothingToCheckOut(let user):
            record(
                OpRecord(
                    seq: seq, now: now, kind: .checkOut, user: user, outcome: -1, detail: .text("nothing to check out"))
            )
        case .nothingToCheckIn(let user):
            record(
                OpRecord(
                    seq: seq, now: now, kind: .checkIn, user: user, outcome: -1, detail: .text("nothing to check in")))
        }
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
        checkReminders()
        let all = ledger.allBookings
        for message in p.bookingsOnFaults(all.lazy.map { ($0.id, $0.slot, $0.status) }) {
            violate(.I20, message)
        }
        for message in SessionCheck.problems(all, rules: p.rules) { violate(.I21, message) }
    }

    /// The most reminders whose own windows ``checkReminders()`` asks about, so that the check
    /// costs O(256 × reminders) at most.
    static let reminderWindowsChecked = 256

    /// I10 for reminders: the reminders due over all time, and in three windows around each of the
    /// first ``reminderWindowsChecked`` (its second, the half hour either side, its clock hour),
    /// are the model's. The model is walked once; each window's share is taken from that walk.
    mutating func checkReminders() {
        let all = Instant(secondsSinceEpoch: -(1 << 40))..<Instant(secondsSinceEpoch: 1 << 40)
        let expected = model.remindersDue(in: all)
        compareReminders(in: all, expected: expected)
        for reminder in expected.prefix(Self.reminderWindowsChecked) where !stopped {
            let fire = reminder.fireAt.secondsSinceEpoch
            let hour = fire - ((fire % 3_600) + 3_600) % 3_600
            for (from, to) in [(fire, fire + 1), (fire - 1_800, fire + 1_800), (hour, hour + 3_600)] {
                let window = Instant(secondsSinceEpoch: from)..<Instant(secondsSinceEpoch: to)
                compareReminders(in: window, expected: expected.filter { window.contains($0.fireAt) })
            }
        }
    }

    private mutating func compareReminders(in window: Range<Instant>, expected: [Reminder]) {
        let got = ledger.remindersDue(in: window)
        guard got != expected else { return }
        violate(
            .I10,
            "reminders due in [\(window.lowerBound.secondsSinceEpoch), \(window.upperBound.secondsSinceEpoch)): the scheduler gives \(got.map { "\($0.booking)@\($0.fireAt.secondsSinceEpoch)" }), the model \(expected.map { "\($0.booking)@\($0.fireAt.secondsSinceEpoch)" })"
        )
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
        // I11 is about concurrency: one operation at a time is linearizable by construction.
        let invariants = Report.InvariantResult.all(
            violations: violations, expected: p.scenario.expectations?.invariants, unchecked: .I11)
        var report = Report(
            scenario: p.scenario.name, file: p.file, seed: p.scenario.seed, mode: "deterministic", threads: nil,
            steps: p.steps.count, operations: operationsDone, accepted: accepted, refused: refused.reduce(0, +),
            refusedByReason: reasons, cancelled: cancelled, displaced: displaced, repeats: repeats, queries: queries,
            availabilityChanges: changes, peakContention: contention, invariants: invariants,
            linearizability: .init(status: "sequential", partitions: 0, unknownPartitions: 0, failingPartition: nil),
            expectations: expectationResults, failures: failures, timing: nil, provenance: p.scenario.provenance,
            attribution: p.scenario.attribution, verdict: "pass")
        report.lifecycle = lifecycle.orNil
        report.finish(expectations: p.scenario.expectations)
        return report
    }
}
