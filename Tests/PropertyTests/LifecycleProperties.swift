import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// A generated lifecycle command: an ordinary command, or one of the lifecycle operations
/// built from the same integers (so it shrinks the same way).
struct LifecycleRaw: Sendable, CustomStringConvertible {
    var raw: RawCommand
    /// 0..<3: an any-socket reserve; 3..<6: a reschedule; otherwise the ordinary command.
    var operation: Int

    var description: String { "LifecycleRaw(\(raw), operation: \(operation))" }

    static let generator = zip(Generators.command, Gen.int(in: 0...9)).map { LifecycleRaw(raw: $0, operation: $1) }
    static let sequences = generator.array(of: 0...40)

    /// The any-socket request `raw` names: station S0 (type 2, 22 kW), S1 (CCS, 50 kW) or the
    /// unknown S9; socket 3 asks for the other station's connector; `extra` picks the minimum
    /// power (0, 11, 22 or 50 kW); request ids r0…r2 are shared with ordinary reserves.
    func anySocketRequest(world: WorldSpec) -> AnySocketRequest {
        let station: StationID = raw.station == 2 ? "S9" : StationID("S\(raw.station)")
        let own: ConnectorType = raw.station == 1 ? "c c s" : "TYPE_2"
        let other: ConnectorType = raw.station == 1 ? .type2 : .ccs
        let power: [Double] = [0, 11, 22, 50]
        return AnySocketRequest(
            station: station, connector: raw.socket == 3 ? other : own, minimumPowerKW: power[raw.extra % 4],
            date: world.dstDate.adding(days: raw.day - 1), hour: raw.hour, user: UserID(UInt64(raw.user + 1)),
            requestID: raw.request >= 2 ? RequestID("r\(raw.request - 2)") : nil,
            reminder: raw.kind % 3 == 0 ? .seconds(raw.extra * 1_800 - 1_800) : nil)
    }

    /// The reschedule `raw` names: one of the model's bookings (by index, so it shrinks), by its
    /// owner unless `user` is 0; to a slot of its own station, or (request 1) of station
    /// `station`; request ids m0…m2.
    func rescheduleRequest(world: WorldSpec, model: ReferenceModel) -> RescheduleRequest? {
        guard !model.bookings.isEmpty else { return nil }
        let booking = model.bookings[(raw.extra + 8 * raw.socket) % model.bookings.count]
        let user = raw.user == 0 ? UserID(booking.user.rawValue % 4 + 1) : booking.user
        let station: StationID =
            raw.request == 1 ? (raw.station == 2 ? "S9" : StationID("S\(raw.station)")) : booking.slot.station
        let slot = Slot(
            station: station, socket: SocketID("\(raw.socket % 2 + 1)"), date: world.dstDate.adding(days: raw.day - 1),
            hour: raw.hour)
        return RescheduleRequest(
            booking: booking.id, user: user, to: slot,
            requestID: raw.request >= 2 ? RequestID("m\(raw.request - 2)") : nil)
    }
}

/// What a lifecycle step did in the ledger, the model and the scheduler.
struct LifecycleStep {
    var description: String
    var before: Ledger
    var after: Ledger
    var outcome: Outcome
    var modelOutcome: Outcome
    var model: ReferenceModel
    var schedulerOutcome: Outcome?
    var schedulerBookings: [Booking]?

    /// I10 for this step: the ledger and the scheduler agree with the model, result and bookings.
    func matchesModel() -> Bool {
        #expect(outcome == modelOutcome, "ledger \(outcome) but model \(modelOutcome)")
        var ok = outcome == modelOutcome && after.allBookings == model.bookings
        #expect(after.allBookings == model.bookings, "ledger and model bookings differ")
        if let schedulerOutcome, let schedulerBookings {
            #expect(schedulerOutcome == modelOutcome, "scheduler \(schedulerOutcome) but model \(modelOutcome)")
            #expect(schedulerBookings == model.bookings, "scheduler and model bookings differ")
            ok = ok && schedulerOutcome == modelOutcome && schedulerBookings == model.bookings
        }
        return ok
    }

    /// I5 for this step: a refusal changed nothing.
    func refusalChangedNothing() -> Bool {
        guard outcome.isRefusal else { return true }
        let same = before.snapshot() == after.snapshot() && before.eventCount == after.eventCount
        #expect(same, "a refused \(description) changed the state")
        return same
    }
}

extension LifecycleStep {
    /// I14 `rescheduleNeverHalfDone` for this step: an accepted move journalled exactly one
    /// `rescheduled` event (none for a repeat) and left the booking, still active, at its new
    /// slot; a refused one changed nothing; and every active booking's slot shows as booked.
    func neverHalfDone(_ request: RescheduleRequest, modelID: BookingID) -> Bool {
        var ok = refusalChangedNothing()
        if case .booking(let moved) = outcome {
            let grew = after.eventCount - before.eventCount
            if grew == 1, case .rescheduled(let move, _) = after.events.last {
                ok = ok && move.booking == modelID && move.to == request.slot && moved.slot == request.slot
            } else {
                ok = ok && grew == 0 && before.snapshot() == after.snapshot()
            }
            #expect(ok, "reschedule \(request) journalled \(grew) events: \(after.events.suffix(2))")
        }
        // Asked just as the slot becomes bookable, an active booking's slot must never show free.
        for booking in after.activeBookings {
            let at = Instant(secondsSinceEpoch: booking.start.secondsSinceEpoch - after.policy.minimumNoticeSeconds)
            if (try? after.status(of: booking.slot, at: at)) == .free {
                Issue.record("active booking \(booking.id) at \(booking.slot) but its slot shows free")
                ok = false
            }
        }
        return ok
    }
}

extension Runner {
    /// Runs one reschedule through the ledger, the model and the scheduler (with its own ids).
    mutating func stepReschedule(_ request: RescheduleRequest) -> LifecycleStep {
        let before = ledger
        let outcome: Outcome
        do { outcome = .booking(try ledger.reschedule(request, at: now).booking) } catch {
            outcome = .refused(error.reason)
        }
        let modelOutcome: Outcome
        switch model.reschedule(request, at: now) {
        case .success(let booking): modelOutcome = .booking(booking)
        case .failure(let reason): modelOutcome = .refused(reason)
        }
        var schedulerOutcome: Outcome?
        var schedulerBookings: [Booking]?
        if let scheduler {
            var mine = request
            mine.booking = toScheduler(request.booking)
            do { schedulerOutcome = .booking(normalize(try scheduler.reschedule(mine, at: now).booking)) } catch {
                schedulerOutcome = .refused(error.reason)
            }
            schedulerBookings = scheduler.allBookings.map { normalize($0) }.sorted { $0.id < $1.id }
        }
        index += 1
        return LifecycleStep(
            description: "reschedule \(request)", before: before, after: ledger, outcome: outcome,
            modelOutcome: modelOutcome, model: model, schedulerOutcome: schedulerOutcome,
            schedulerBookings: schedulerBookings)
    }

    /// Runs one any-socket reserve through the ledger, the model and the scheduler.
    mutating func stepAnySocket(_ request: AnySocketRequest) -> LifecycleStep {
        let before = ledger
        let outcome: Outcome
        do { outcome = .booking(try ledger.reserve(request, at: now)) } catch { outcome = .refused(error.reason) }
        let modelOutcome: Outcome
        switch model.reserveAny(request, at: now) {
        case .success(let booking): modelOutcome = .booking(booking)
        case .failure(let reason): modelOutcome = .refused(reason)
        }
        var schedulerOutcome: Outcome?
        var schedulerBookings: [Booking]?
        if let scheduler {
            do {
                let booking = try scheduler.reserve(request, at: now)
                if mapToModel(booking.id) == nil { schedulerIDs.append(booking.id) }
                schedulerOutcome = .booking(normalize(booking))
            } catch { schedulerOutcome = .refused(error.reason) }
            schedulerBookings = scheduler.allBookings.map { normalize($0) }.sorted { $0.id < $1.id }
        }
        index += 1
        return LifecycleStep(
            description: "any-socket \(request)", before: before, after: ledger, outcome: outcome,
            modelOutcome: modelOutcome, model: model, schedulerOutcome: schedulerOutcome,
            schedulerBookings: schedulerBookings)
    }
}

/// Runs lifecycle sequences: ordinary steps are checked against the model as in I10, lifecycle
/// steps by `check`; at the end the ledger's and the scheduler's journals must replay (I8).
func runLifecycle(
    _ world: WorldSpec, _ commands: [LifecycleRaw], shards: Int, sourceLocation: SourceLocation = #_sourceLocation,
    check: (LifecycleStep) -> Bool
) {
    guard var runner = Runner(world: world, schedulerShards: shards) else {
        Issue.record("the library refused the generated world \(world)", sourceLocation: sourceLocation)
        return
    }
    var trace: [String] = []
    for command in commands {
        let ok: Bool
        if (3..<6).contains(command.operation),
            let request = command.rescheduleRequest(world: world, model: runner.model)
        {
            let step = runner.stepReschedule(request)
            trace.append("\(step.description) at \(runner.now) -> \(step.outcome)")
            ok =
                step.matchesModel() && checkNoDoubleBooking(step.after.activeBookings)
                && step.neverHalfDone(request, modelID: request.booking)
        } else if command.operation < 3 {
            let step = runner.stepAnySocket(command.anySocketRequest(world: world))
            trace.append("\(step.description) at \(runner.now) -> \(step.outcome)")
            ok = step.matchesModel() && check(step)
        } else {
            let step = runner.step(command.raw)
            trace.append("\(step.command) at \(step.now) -> \(step.outcome)")
            ok = checkMatchesModel(step) && checkNoDoubleBooking(step.after.activeBookings)
        }
        if !ok {
            Issue.record(
                Comment(rawValue: "failed in \(world)\n" + trace.joined(separator: "\n")),
                sourceLocation: sourceLocation)
            return
        }
    }
    checkReplays(runner, sourceLocation: sourceLocation)
}

/// I8 at the end of a lifecycle run: both journals and the snapshot rebuild the same state.
func checkReplays(_ runner: Runner, sourceLocation: SourceLocation) {
    let expected = runner.ledger.snapshot()
    do {
        let replayed = try Ledger(rules: runner.rules, replaying: runner.ledger.events)
        #expect(replayed.snapshot() == expected, "ledger journal replay differs", sourceLocation: sourceLocation)
        let restored = try Ledger(rules: runner.rules, snapshot: expected)
        #expect(restored.snapshot() == expected, "snapshot restore differs", sourceLocation: sourceLocation)
        if let scheduler = runner.scheduler {
            let again = try Scheduler(rules: runner.rules, shards: scheduler.shardCount, replaying: scheduler.events)
            #expect(
                again.snapshot() == scheduler.snapshot(), "scheduler journal replay differs",
                sourceLocation: sourceLocation)
        }
        // What the books remember beside the bookings (request ids and the slots they asked
        // for) is restored too: every reservation of the run, repeated now, answers alike.
        for request in runner.history where request.requestID != nil {
            let faces: [(String, any RepeatFace)] = [
                ("ledger", runner.ledger), ("its journal replayed", replayed), ("its snapshot restored", restored),
                ("a scheduler restored from it", try Scheduler(rules: runner.rules, shards: 2, snapshot: expected)),
            ]
            let answers = faces.map { ($0.0, $0.1.repeatAnswer(request, at: runner.now)) }
            #expect(
                answers.allSatisfy { $0.1 == answers[0].1 }, "a repeat of \(request) answers \(answers)",
                sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("replay failed: \(error)", sourceLocation: sourceLocation)
    }
}

/// How a face answers a reservation, in terms that do not depend on the ids it would assign: a
/// repeat names the booking it repeats, a new booking is only new (the faces number differently).
protocol RepeatFace {
    func repeatAnswer(_ request: ReservationRequest, at now: Instant) -> String
}

extension Ledger: RepeatFace {
    func repeatAnswer(_ request: ReservationRequest, at now: Instant) -> String {
        var copy = self
        do throws(Rejection) {
            let made = try copy.book(request, at: now)
            return made.isReplay ? "repeat of \(made.booking.id) at \(made.booking.slot)" : "new"
        } catch { return "refused: \(error.reason)" }
    }
}

extension Scheduler: RepeatFace {
    /// Books on this scheduler: only for one made to be asked once (a restore).
    func repeatAnswer(_ request: ReservationRequest, at now: Instant) -> String {
        do throws(Rejection) {
            let made = try book(request, at: now)
            return made.isReplay ? "repeat of \(made.booking.id) at \(made.booking.slot)" : "new"
        } catch { return "refused: \(error.reason)" }
    }
}

/// Properties of the lifecycle operations: any free socket and reschedule, mixed into the
/// ordinary commands and checked after every step against the reference model.
@Suite struct LifecycleProperties {
    static let count = iterations(200)

    /// I13 `anySocketNeverShares`, I10 and I5 for any-socket reserves: the ledger and a 3-shard
    /// scheduler pick the same socket as the model (the first free match in catalog order), no
    /// two active bookings share a slot, a refusal changes nothing, and the journals replay.
    @Test func I13_anySocketNeverShares() async {
        await propertyCheck(count: Self.count, input: Generators.world, LifecycleRaw.sequences) { world, commands in
            runLifecycle(world, commands, shards: 3) { step in
                checkNoDoubleBooking(step.after.activeBookings) && step.refusalChangedNothing()
            }
        }
    }

    /// I14 `rescheduleNeverHalfDone`, I10 and I5 for reschedules: the ledger and a 3-shard
    /// scheduler move exactly what the model moves (the booking counted once against the
    /// limit), a move is journalled as one event and leaves no slot freed without its booking
    /// moved, a refusal changes nothing, and the journals and snapshots replay.
    @Test func I14_rescheduleNeverHalfDone() async {
        await propertyCheck(count: Self.count, input: Generators.world, LifecycleRaw.sequences) { world, commands in
            runLifecycle(world, commands, shards: 3) { step in
                checkNoDoubleBooking(step.after.activeBookings) && step.refusalChangedNothing()
            }
        }
    }
}
