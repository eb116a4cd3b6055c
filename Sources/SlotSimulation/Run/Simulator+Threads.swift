import Dispatch
import Foundation
import SlotScheduler
import Synchronization

final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// Monotonic nanoseconds since the run began, or, when `shared`, since the machine booted: the
/// system-wide monotonic clock, so the histories of several processes on one machine share one
/// time line.
struct MonotonicClock: Sendable {
    let base: UInt64
    init(shared: Bool = false) { base = shared ? 0 : DispatchTime.now().uptimeNanoseconds }
    func nanoseconds() -> Int64 { Int64(truncatingIfNeeded: DispatchTime.now().uptimeNanoseconds &- base) }
}

extension Simulator {
    /// Runs the scenario with `threads` concurrent workers against one shared `service`, streams
    /// a history of invoke/complete events to disk (``RunOptions/historyPath``, else a temporary
    /// file removed afterwards), then reads it back and checks the invariants and linearizability
    /// (per slot and per user). Scripted steps run first, one at a time; then the workers run
    /// the workload, its availability changes and its timeline (a change at operation *n* is
    /// made by the worker that draws operation *n*, concurrently with the others).
    public static func runThreads(
        _ p: PreparedScenario, service: any BookingService, threads: Int, options: RunOptions = RunOptions(),
        linearizabilityBudget: Int = 2_000_000
    ) async throws(SimulationIOError) -> Report {
        let recorded = try await recordThreads(p, service: service, threads: threads, options: options)
        defer { if recorded.temporary { unlink(recorded.historyPath) } }
        // Kept compactly before the history is read, so the store's whole bookings are gone by then.
        let finalBookings = BookingsByID((try? await service.allBookingsByID()) ?? [], p)
        var analysis = ThreadsAnalysis(
            p: p, history: try readTimedHistory(path: recorded.historyPath, p), finalBookings: finalBookings,
            options: options)
        analysis.finalCatalog = service.rules.catalog
        analysis.run(budget: linearizabilityBudget)
        var report = analysis.report(
            threads: recorded.workers, elapsed: recorded.elapsed, operations: recorded.operations)
        report.expectations = recorded.expectations
        report.finish(expectations: p.scenario.expectations)
        return report
    }

    /// Runs this process's share of the workload (``RunOptions/process``) and writes the history,
    /// without checking it: the checks need every process's history and the store's final state
    /// (``verifyProcesses(_:historyPaths:finalBookings:options:linearizabilityBudget:)``).
    /// Returns the number of operations and the seconds they took.
    public static func runThreadsShare(
        _ p: PreparedScenario, service: any BookingService, threads: Int, options: RunOptions
    ) async throws(SimulationIOError) -> (operations: Int, seconds: Double) {
        let recorded = try await recordThreads(p, service: service, threads: threads, options: options)
        if recorded.temporary { unlink(recorded.historyPath) }
        return (recorded.operations, recorded.elapsed)
    }

    struct ThreadsRecording {
        /// The history file: the one asked for, or a temporary one (``temporary``) to check from.
        var historyPath: String
        var temporary: Bool
        var expectations: [Report.ExpectationResult]
        var workers: Int
        var elapsed: Double
        var operations: Int
    }

    /// A history file for a run that asked for none: its checks read the history back from disk.
    static func temporaryHistoryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "schedule-sim-\(getpid())-\(UUID().uuidString)-history.jsonl"
        ).path
    }

    /// Runs the steps, then the workers, streaming every operation's invoke and return lines to
    /// the history file (``HistoryStream``); nothing of the history stays in memory.
    static func recordThreads(
        _ p: PreparedScenario, service: any BookingService, threads: Int, options: RunOptions
    ) async throws(SimulationIOError) -> ThreadsRecording {
        let part = options.process
        // Opened first: a history path that cannot be written fails before the run.
        let temporary = options.historyPath == nil
        let stream = try HistoryStream(
            path: options.historyPath ?? temporaryHistoryPath(), flushEachOperation: options.flushHistoryEachOperation)
        let clock = MonotonicClock(shared: part.count > 1 || options.sharedClock)
        var sink = HistorySink(stream, p)
        let start = p.scenario.clock.start.instant.secondsSinceEpoch
        for change in p.scenario.overrides ?? [] {
            _ = try? await service.changeAvailability(
                change, onBookings: .displace, at: Instant(secondsSinceEpoch: start))
        }
        let expectations = await runSteps(p, service: service, clock: clock, sink: &sink)
        sink.flush()

        let workers = max(1, threads)
        let all = p.scenario.workload?.operations ?? 0
        // This process's share; workers are numbered across processes.
        let total = all / part.count + (part.index < all % part.count ? 1 : 0)
        let counter = Counter()
        let began = clock.nanoseconds()
        await withTaskGroup(of: Void.self) { group in
            for w in 0..<workers {
                let share = total / workers + (w < total % workers ? 1 : 0)
                group.addTask {
                    await worker(
                        part.index * workers + w, operations: share, p: p, service: service, clock: clock,
                        counter: counter, part: part, stream: stream)
                }
            }
        }
        let elapsed = Double(clock.nanoseconds() - began) / 1e9
        // Timeline changes after the last operation.
        if part.index == 0 {
            let end = WorkloadDraw(p)?.now(at: all) ?? p.workloadStart
            for timed in p.timeline where timed.atOperation >= all {
                await change(timed.change, rule: timed.rule, worker: -1, now: end, service, clock, &sink)
            }
        }
        sink.flush()
        try stream.finish()
        return ThreadsRecording(
            historyPath: stream.path, temporary: temporary, expectations: expectations, workers: workers,
            elapsed: elapsed, operations: total)
    }

    /// Runs the scripted steps one at a time (process -1) through the shared ``ScriptedSteps``
    /// and checks their expectations.
    static func runSteps(
        _ p: PreparedScenario, service: any BookingService, clock: MonotonicClock, sink: inout HistorySink
    ) async -> [Report.ExpectationResult] {
        var expectations: [Report.ExpectationResult] = []
        var script = ScriptedSteps(p)
        for (i, step) in p.steps.enumerated() {
            guard let command = script.command(step) else { continue }
            let result = await runStep(command, step, p, service: service, clock: clock, sink: &sink)
            expectations += script.finish(i, step, result)
        }
        return expectations
    }

    /// Runs one step's command against `service` and records it.
    static func runStep(
        _ command: StepCommand, _ step: PreparedScenario.CompiledStep, _ p: PreparedScenario,
        service: any BookingService,
        clock: MonotonicClock, sink: inout HistorySink
    ) async -> StepResult {
        let now = Instant(secondsSinceEpoch: step.now)
        var op = TimedOperation(
            process: -1, kind: .reserve, user: step.user, cell: step.cell, now: step.now, invoke: 0, complete: 0)
        switch command {
        case .reserve(let request, _, let repeatOf):
            op.requestID = request.requestID?.rawValue
            op.repeatOf = repeatOf
        case .cancel(let booking):
            op.kind = .cancel
            op.booking = booking ?? 0
        case .query: op.kind = .query
        case .change(let change, _):
            op.kind = .change
            op.detail = change.description
            op.change = change
        case .hold, .confirm, .releaseHold, .reschedule, .anySocket, .checkIn, .checkOut:
            return await runLifecycleStep(command, step, p, service: service, clock: clock, sink: &sink)
        }
        let index = sink.invoke(&op, clock: clock)
        var result = StepResult(got: "accepted")
        do {
            switch command {
            case .reserve(let request, _, _):
                op.booking = try await service.reserve(request, at: now).id.rawValue
                result.booking = op.booking
            case .cancel(let booking):
                guard let booking else { throw Rejection(.unknownBooking) }
                _ = try await service.cancel(BookingID(booking), by: UserID(step.user), at: now)
            case .query(let cell):
                let slot = p.slot(ofCell: cell)
                let view = try await service.dayView(of: slot.station, on: slot.date, at: now)
                result.got = view.status(socket: slot.socket, hour: slot.hour)?.rawValue ?? "error"
                op.detail = result.got
            case .change(let change, let rule):
                op.displaced = try await service.changeAvailability(change, onBookings: rule, at: now).map(
                    \.id.rawValue)
                result.displaced = op.displaced
            case .hold, .confirm, .releaseHold, .reschedule, .anySocket, .checkIn, .checkOut: break
            }
        } catch let rejection as Rejection {
            op.outcome = Reasons.code(rejection.reason)
            result.got = rejection.reason.rawValue
        } catch {
            op.outcome = -2
            result.got = "error: \(error)"
        }
        sink.complete(&op, index: index, clock: clock)
        return result
    }

    static func worker(
        _ w: Int, operations: Int, p: PreparedScenario, service: any BookingService, clock: MonotonicClock,
        counter: Counter, part: RunOptions.ProcessPart = .init(), stream: HistoryStream
    ) async {
        guard let draw = WorkloadDraw(p), operations > 0 else { return }
        var sink = HistorySink(stream, p)
        var rng = SplitMix64(seed: p.scenario.seed &+ UInt64(w + 1) &* 0x9E37_79B9_7F4A_7C15)
        // This worker's own bookings and requests: another worker's may be gone at any time.
        var pools = DrawPools()
        for i in 0..<operations {
            // Processes interleave their operation numbers, so their clocks advance together.
            let index = counter.value.add(1, ordering: .relaxed).oldValue * part.count + part.index
            let nowSeconds = draw.now(at: index)
            let now = Instant(secondsSinceEpoch: nowSeconds)
            for timed in timelineChanges(p, at: index) {
                await change(timed.change, rule: timed.rule, worker: w, now: nowSeconds, service, clock, &sink)
            }
            var op = TimedOperation(
                process: Int32(w), kind: .reserve, user: 0, now: nowSeconds, invoke: 0, complete: 0)
            let drawn = draw.next(&rng, pools: pools)
            switch drawn {
            case .reserve(let cell, let user):
                op.user = user
                op.cell = cell
            case .cancel(let booking, let owner, let user):
                op.kind = .cancel
                op.user = user
                op.booking = booking
                let n = sink.invoke(&op, clock: clock)
                do {
                    _ = try await service.cancel(BookingID(booking), by: UserID(user), at: now)
                    pools.remove(booking, of: owner)
                } catch let r as Rejection {
                    op.outcome = Reasons.code(r.reason)
                    if r.reason != .notOwner { pools.remove(booking, of: owner) }
                } catch { op.outcome = -2 }
                sink.complete(&op, index: n, clock: clock)
                continue
            case .nothingToCancel, .nothingToMove, .nothingToCheckIn, .nothingToCheckOut: continue
            case .hold, .confirm, .releaseHold, .reschedule, .anySocket, .checkIn, .checkOut:
                guard let call = lifecycleCall(drawn, p, op: &op) else { continue }
                let n = sink.invoke(&op, clock: clock)
                await perform(call, p, service: service, now: now, op: &op)
                sink.complete(&op, index: n, clock: clock)
                noteLifecycle(op, pools: &pools, rng: &rng)
                continue
            case .query(let cell, let user):
                op.kind = .query
                op.user = user
                op.cell = cell
                let slot = p.slot(ofCell: cell)
                let n = sink.invoke(&op, clock: clock)
                let view = try? await service.dayView(of: slot.station, on: slot.date, at: now)
                op.detail = view?.status(socket: slot.socket, hour: slot.hour)?.rawValue ?? "error"
                sink.complete(&op, index: n, clock: clock)
                continue
            case .change(let c, let rule, _):
                await Self.change(c, rule: rule, worker: w, now: nowSeconds, service, clock, &sink)
                continue
            case .retry(let cell, let user, let earlier):
                op.user = user
                op.cell = cell
                if let earlier {
                    op.requestID = earlier.id.rawValue
                    if earlier.cell == cell { op.repeatOf = earlier.booking }
                } else {
                    // Unique per seed too: runs resumed on one store with other seeds never reuse one.
                    op.requestID = "w\(w)-\(i)-seed\(p.scenario.seed)"
                }
            }
            let request = ReservationRequest(
                slot: p.slot(ofCell: op.cell), user: UserID(op.user), requestID: op.requestID.map { RequestID($0) })
            let n = sink.invoke(&op, clock: clock)
            do {
                let b = try await service.reserve(request, at: now)
                op.booking = b.id.rawValue
            } catch let r as Rejection {
                op.outcome = Reasons.code(r.reason)
            } catch { op.outcome = -2 }
            sink.complete(&op, index: n, clock: clock)
            if op.outcome == -1 && op.repeatOf == 0 {
                pools.add(op.booking, of: op.user, cell: op.cell)
                pools.noteBooker(op.user)
                if let id = request.requestID {
                    pools.remember(.init(user: op.user, id: id, cell: op.cell, booking: op.booking), rng: &rng)
                }
            }
        }
        sink.flush()
    }

    /// The timeline's changes due at operation `index` (the timeline is sorted by operation).
    static func timelineChanges(_ p: PreparedScenario, at index: Int) -> ArraySlice<PreparedScenario.CompiledChange> {
        var low = 0
        var high = p.timeline.count
        while low < high {
            let mid = (low + high) / 2
            if p.timeline[mid].atOperation < index { low = mid + 1 } else { high = mid }
        }
        var end = low
        while end < p.timeline.count && p.timeline[end].atOperation == index { end += 1 }
        return p.timeline[low..<end]
    }

    /// A change of the socket-day of `cell`, drawn as the deterministic mode draws it: closed,
    /// random hours or back to regular hours.
    static func randomChange(_ p: PreparedScenario, cell: Int32, rng: inout SplitMix64) -> AvailabilityChange {
        let slot = p.slot(ofCell: cell)
        let hours: HourSet?
        switch rng.below(4) {
        case 0, 1: hours = .closed
        case 2: hours = HourSet(mask: UInt32(truncatingIfNeeded: rng.next()))
        default: hours = nil
        }
        return AvailabilityChange(station: slot.station, socket: slot.socket, date: slot.date, hours: hours)
    }

    /// Makes one availability change and records it.
    static func change(
        _ change: AvailabilityChange, rule: DisplacementRule, worker: Int, now: Int64, _ service: any BookingService,
        _ clock: MonotonicClock, _ sink: inout HistorySink
    ) async {
        var op = TimedOperation(
            process: Int32(worker), kind: .change, user: 0, now: now, invoke: 0, complete: 0,
            detail: change.description + (rule == .refuse ? " (refuse)" : ""))
        op.change = change
        let index = sink.invoke(&op, clock: clock)
        do {
            let moved = try await service.changeAvailability(
                change, onBookings: rule, at: Instant(secondsSinceEpoch: now))
            op.displaced = moved.map(\.id.rawValue)
        } catch let r as Rejection {
            op.outcome = Reasons.code(r.reason)
        } catch { op.outcome = -2 }
        sink.complete(&op, index: index, clock: clock)
    }

    /// The history line of an operation's invoke or return event.
    static func timedLine(
        _ op: TimedOperation, index: Int, time: Int64, isReturn: Bool, _ format: inout HistoryFormat
    ) -> HistoryLine {
        var line = HistoryLine(op: op.kind.historyName, user: op.user)
        line.process = op.process
        line.type = isReturn ? (op.outcome == -1 ? "ok" : op.outcome == -2 ? "info" : "fail") : "invoke"
        line.time = time
        line.index = index
        line.now = op.now
        if op.cell >= 0 {
            line.slot = format.slotName(op.cell)
            line.cell = op.cell
        }
        if op.repeatOf != 0, !isReturn { line.repeatOf = op.repeatOf }
        if !isReturn { line.change = op.change }
        line.requestID = op.requestID
        if isReturn || [.cancel, .reschedule, .checkIn, .checkOut].contains(op.kind), op.booking != 0 {
            line.booking = op.booking
        }
        // An any-socket invoke names the request (its cell and least power), its return the socket given.
        if op.kind == .anySocket, !isReturn { line.detail = "minimumPowerKW \(op.minimumPowerKW)" }
        // A check-in's invoke names the code it presented.
        if op.kind == .checkIn, !isReturn, let code = op.accessCode { line.detail = "accessCode \(code)" }
        // A check-out's invoke names where it left its resource.
        if op.kind == .checkOut, !isReturn, let place = op.leftAt { line.detail = place.leftAtDetail }
        if isReturn {
            line.result = op.outcome == -2 ? "error" : Reasons.name(op.outcome)
            if !op.displaced.isEmpty { line.displaced = op.displaced }
            line.detail = op.detail
        }
        return line
    }
}
