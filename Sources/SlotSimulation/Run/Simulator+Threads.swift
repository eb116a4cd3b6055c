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

    struct RequestKey: Hashable {
        var user: UInt64
        var id: String
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
            let end = p.workloadStart + p.scenario.clock.stepSeconds * (Int64(all) / perStepOf(p))
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

    /// Runs the scripted steps one at a time (process -1) and checks their expectations.
    static func runSteps(
        _ p: PreparedScenario, service: any BookingService, clock: MonotonicClock, sink: inout HistorySink
    ) async -> [Report.ExpectationResult] {
        var expectations: [Report.ExpectationResult] = []
        var stepBookings: [Int: UInt64] = [:]
        var labelOf: [UInt64: String] = [:]
        /// The first accepted reserve step of each (user, request id): what a repeat must return.
        var firstAccepted: [RequestKey: (cell: Int32, booking: UInt64)] = [:]
        for (i, step) in p.steps.enumerated() {
            let now = Instant(secondsSinceEpoch: step.now)
            var op = TimedOperation(
                process: -1, kind: .reserve, user: step.user, cell: step.cell, now: step.now, invoke: 0, complete: 0)
            let key = step.step.requestID.map { RequestKey(user: step.user, id: $0.rawValue) }
            switch step.step.op {
            case .reserve:
                op.requestID = step.step.requestID?.rawValue
                if let key, let earlier = firstAccepted[key], earlier.cell == step.cell {
                    op.repeatOf = earlier.booking
                }
            case .cancel:
                op.kind = .cancel
                op.booking = stepBookings[step.target] ?? 0
            case .query: op.kind = .query
            case .changeAvailability:
                op.kind = .change
                op.detail = step.change?.description
                op.change = step.change
            }
            let index = sink.invoke(&op, clock: clock)
            var got = "accepted"
            do {
                switch step.step.op {
                case .reserve:
                    let b = try await service.reserve(
                        ReservationRequest(
                            slot: p.slot(ofCell: step.cell), user: UserID(step.user), requestID: step.step.requestID),
                        at: now)
                    op.booking = b.id.rawValue
                    if let key, firstAccepted[key] == nil { firstAccepted[key] = (step.cell, b.id.rawValue) }
                    stepBookings[i] = b.id.rawValue
                    if let label = step.step.label { labelOf[b.id.rawValue] = label }
                case .cancel:
                    guard op.booking != 0 else { throw Rejection(.unknownBooking) }
                    _ = try await service.cancel(BookingID(op.booking), by: UserID(step.user), at: now)
                case .query:
                    let slot = p.slot(ofCell: step.cell)
                    let view = try await service.dayView(of: slot.station, on: slot.date, at: now)
                    got = view.status(socket: slot.socket, hour: slot.hour)?.rawValue ?? "error"
                    op.detail = got
                case .changeAvailability:
                    guard let change = step.change else { break }
                    let moved = try await service.changeAvailability(
                        change, onBookings: step.step.onBookings ?? .displace, at: now)
                    op.displaced = moved.map(\.id.rawValue)
                    if let labels = step.step.expectDisplaced {
                        let have = op.displaced.map { labelOf[$0] ?? "booking \($0)" }.sorted()
                        expectations.append(
                            .init(
                                what: "steps[\(i)] displaced",
                                expected: "[" + labels.sorted().joined(separator: ", ") + "]",
                                actual: "[" + have.joined(separator: ", ") + "]", pass: have == labels.sorted()))
                    }
                }
            } catch let rejection as Rejection {
                op.outcome = Reasons.code(rejection.reason)
                got = rejection.reason.rawValue
            } catch {
                op.outcome = -2
                got = "error: \(error)"
            }
            sink.complete(&op, index: index, clock: clock)
            if let want = step.step.expect {
                expectations.append(
                    .init(
                        what: "steps[\(i)] \(step.step.op.rawValue)" + (step.step.note.map { " (\($0))" } ?? ""),
                        expected: want, actual: got, pass: want == got))
            }
        }
        return expectations
    }

    static func worker(
        _ w: Int, operations: Int, p: PreparedScenario, service: any BookingService, clock: MonotonicClock,
        counter: Counter, part: RunOptions.ProcessPart = .init(), stream: HistoryStream
    ) async {
        guard let workload = p.scenario.workload, operations > 0 else { return }
        var sink = HistorySink(stream, p)
        var rng = SplitMix64(seed: p.scenario.seed &+ UInt64(w + 1) &* 0x9E37_79B9_7F4A_7C15)
        let mix = workload.mix
        let reserveW = mix.reserve
        let cancelW = reserveW + (mix.cancel ?? 0)
        let queryW = cancelW + (mix.query ?? 0)
        let changeW = queryW + (mix.availability ?? 0)
        let totalW = max(1, changeW + (mix.retry ?? 0))
        let hotShare = p.hot.isEmpty ? 0 : (workload.hotness?.share ?? 0)
        let perStep = perStepOf(p)
        var mine: [(id: UInt64, user: UInt64)] = []
        var lastRequest: (user: UInt64, id: String, cell: Int32, booking: UInt64)?
        for i in 0..<operations {
            // Processes interleave their operation numbers, so their clocks advance together.
            let index = counter.value.add(1, ordering: .relaxed).oldValue * part.count + part.index
            let nowSeconds = p.workloadStart + p.scenario.clock.stepSeconds * (Int64(index) / perStep)
            let now = Instant(secondsSinceEpoch: nowSeconds)
            for timed in timelineChanges(p, at: index) {
                await change(timed.change, rule: timed.rule, worker: w, now: nowSeconds, service, clock, &sink)
            }
            let roll = rng.below(totalW)
            let userID = p.firstUser &+ UInt64(rng.below(p.userCount))
            let cell =
                rng.chance(hotShare) ? p.hot[rng.below(p.hot.count)] : p.candidates[rng.below(p.candidates.count)]
            var op = TimedOperation(
                process: Int32(w), kind: .reserve, user: userID, cell: cell, now: nowSeconds, invoke: 0, complete: 0)
            var request: ReservationRequest?
            if roll < reserveW {
                request = ReservationRequest(slot: p.slot(ofCell: cell), user: UserID(userID))
            } else if roll < cancelW {
                op.kind = .cancel
                guard !mine.isEmpty else { continue }
                let pick = rng.below(mine.count)
                let target = mine[pick]
                op.booking = target.id
                if rng.below(8) != 0 { op.user = target.user }
                op.cell = -1
                let n = sink.invoke(&op, clock: clock)
                do {
                    _ = try await service.cancel(BookingID(target.id), by: UserID(op.user), at: now)
                    mine.remove(at: pick)
                } catch let r as Rejection {
                    op.outcome = Reasons.code(r.reason)
                    if r.reason != .notOwner { mine.remove(at: pick) }
                } catch { op.outcome = -2 }
                sink.complete(&op, index: n, clock: clock)
                continue
            } else if roll >= queryW && roll < changeW {
                let change = randomChange(p, cell: cell, rng: &rng)
                let rule: DisplacementRule = rng.below(4) == 0 ? .refuse : .displace
                await Self.change(change, rule: rule, worker: w, now: nowSeconds, service, clock, &sink)
                continue
            } else if roll < queryW {
                op.kind = .query
                let slot = p.slot(ofCell: cell)
                let n = sink.invoke(&op, clock: clock)
                let view = try? await service.dayView(of: slot.station, on: slot.date, at: now)
                op.detail = view?.status(socket: slot.socket, hour: slot.hour)?.rawValue ?? "error"
                sink.complete(&op, index: n, clock: clock)
                continue
            } else {
                if let last = lastRequest, rng.below(2) == 0 {
                    op.user = last.user
                    op.cell = last.cell
                    op.requestID = last.id
                    op.repeatOf = last.booking
                } else {
                    // Unique per seed too: runs resumed on one store with other seeds never reuse one.
                    op.requestID = "w\(w)-\(i)-seed\(p.scenario.seed)"
                }
                request = ReservationRequest(
                    slot: p.slot(ofCell: op.cell), user: UserID(op.user), requestID: op.requestID.map { RequestID($0) })
            }
            guard let request else { continue }
            let n = sink.invoke(&op, clock: clock)
            do {
                let b = try await service.reserve(request, at: now)
                op.booking = b.id.rawValue
            } catch let r as Rejection {
                op.outcome = Reasons.code(r.reason)
            } catch { op.outcome = -2 }
            sink.complete(&op, index: n, clock: clock)
            if op.outcome == -1 && op.repeatOf == 0 {
                mine.append((op.booking, op.user))
                if let id = op.requestID { lastRequest = (op.user, id, op.cell, op.booking) }
            }
        }
        sink.flush()
    }

    static func perStepOf(_ p: PreparedScenario) -> Int64 { Int64(max(1, p.scenario.clock.operationsPerStep ?? 1)) }

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
        let name =
            switch op.kind {
            case .reserve: "reserve"
            case .cancel: "cancel"
            case .query: "query"
            case .change: "changeAvailability"
            }
        var line = HistoryLine(op: name, user: op.user)
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
        if isReturn || op.kind == .cancel, op.booking != 0 { line.booking = op.booking }
        if isReturn {
            line.result = op.outcome == -2 ? "error" : Reasons.name(op.outcome)
            if !op.displaced.isEmpty { line.displaced = op.displaced }
            line.detail = op.detail
        }
        return line
    }
}
