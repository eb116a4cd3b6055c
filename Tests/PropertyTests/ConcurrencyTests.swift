import Foundation
import PropertyBased
import SlotScheduler
import SlotSimulation
import Testing

/// I11: generated command sets run from many tasks at once against one ``Scheduler``. Each
/// operation records monotonic invoke/complete readings (used only to order operations). The
/// history must leave every invariant intact and be linearizable: the simulator's WGL search per slot
/// and per user finds a sequential order consistent with real time that the model accepts.
@Suite struct ConcurrencyTests {
    static let world = WorldSpec(
        sockets0: 2, sockets1: 1, openFrom: 0, limit: 2, horizonKind: 0, horizonDays: 0, noticeHalfHours: 0,
        cutoffHalfHours: 0, season: 0, startHalfHours: 0)
    static let date = LocalDate(dayNumber: 17_618)  // 2018-03-28
    static let now = Instant(secondsSinceEpoch: 17_610 * 86_400)
    /// Slots: S0 sockets 1, 2 at 09:00 and 10:00.
    static let slots: [Slot] = [
        Slot(station: "S0", socket: "1", date: date, hour: 9), Slot(station: "S0", socket: "2", date: date, hour: 9),
        Slot(station: "S0", socket: "1", date: date, hour: 10), Slot(station: "S0", socket: "2", date: date, hour: 10),
    ]
    static let users: [UserID] = [1, 2, 3]

    /// An operation: reserve slot `op % 4` for user `op / 4 % 3`, or (op ≥ 60) cancel a premade booking.
    static let tasks = Gen.int(in: 0...99).array(of: 0...4).array(of: 0...8)

    @Test func I11_linearizable() async {
        await propertyCheck(count: iterations(60), input: Self.tasks) { tasks in
            await checkConcurrentRun(tasks, spin: false)
        }
    }

    /// The shared search refuses a history no order explains: two bookings of one free slot, the
    /// second invoked after the first returned; overlapping, one refused as taken, it accepts.
    @Test func linearizeRefusesTwoHoldersOfOneSlot() {
        let t = ContinuousClock.now
        func op(_ user: UserID, _ result: Result<BookingID, Rejection>, at start: Int) -> Operation {
            Operation(
                kind: .reserve(slot: 0, user: user), invoke: t + .milliseconds(start),
                complete: t + .milliseconds(start + 10), result: result)
        }
        let free = SlotState(occupant: nil, cancelled: [])
        let twice = [op(1, .success(BookingID(1)), at: 0), op(2, .success(BookingID(2)), at: 20)]
        #expect(linearize(twice, from: free, step: slotStep) == .notLinearizable)
        let taken = [op(1, .success(BookingID(1)), at: 5), op(2, .failure(Rejection(.slotTaken)), at: 0)]
        #expect(linearize(taken, from: free, step: slotStep) == .linearizable)
    }

    /// Every task reserves the same slot for a different user at once: exactly one succeeds.
    @Test func I11_linearizable_contendedSlot() async {
        for _ in 0..<iterations(150) {
            let tasks = (0..<8).map { [$0 % 3 * 4] }  // slot 0, users 1, 2, 3
            if !(await checkConcurrentRun(tasks, spin: true)) { return }
        }
    }
}

/// One recorded operation of a concurrent history.
struct Operation: Sendable {
    enum Kind: Sendable, Equatable {
        case reserve(slot: Int, user: UserID)
        case cancel(BookingID, slot: Int, user: UserID)
    }
    var kind: Kind
    var invoke: ContinuousClock.Instant
    var complete: ContinuousClock.Instant
    /// The booking made or cancelled, or the refusal.
    var result: Result<BookingID, Rejection>
}

/// Runs `tasks` concurrently on a fresh scheduler and checks invariants and linearizability.
/// Returns whether everything held.
@discardableResult
func checkConcurrentRun(_ tasks: [[Int]], spin: Bool) async -> Bool {
    typealias T = ConcurrencyTests
    guard let rules = T.world.rules else {
        Issue.record("fixed world refused")
        return false
    }
    let scheduler = Scheduler(rules: rules, shards: 2, userStripes: 2)
    // Premade: user 1 holds slot 2, user 2 holds slot 3.
    var premade: [(BookingID, Int, UserID)] = []
    for (slot, user) in [(2, UserID(1)), (3, UserID(2))] {
        do {
            premade.append(
                (try scheduler.reserve(ReservationRequest(slot: T.slots[slot], user: user), at: T.now).id, slot, user))
        } catch {
            Issue.record("premade booking refused: \(error)")
            return false
        }
    }
    let plans: [[Operation.Kind]] = tasks.map { ops in
        ops.map { op in
            if op >= 60 {
                let (id, slot, owner) = premade[op % premade.count]
                return .cancel(id, slot: slot, user: owner)
            }
            return .reserve(slot: op % 4, user: T.users[op / 4 % 3])
        }
    }
    let history: [Operation] = await withTaskGroup(of: [Operation].self) { group in
        for plan in plans {
            group.addTask {
                var done: [Operation] = []
                for kind in plan {
                    if spin { await Task.yield() }
                    let invoke = ContinuousClock.now
                    let result: Result<BookingID, Rejection>
                    switch kind {
                    case .reserve(let slot, let user):
                        do throws(Rejection) {
                            result = .success(
                                try scheduler.reserve(ReservationRequest(slot: T.slots[slot], user: user), at: T.now).id
                            )
                        } catch { result = .failure(error) }
                    case .cancel(let id, _, let user):
                        do throws(Rejection) {
                            result = .success(try scheduler.cancel(id, by: user, at: T.now).id)
                        } catch {
                            result = .failure(error)
                        }
                    }
                    done.append(Operation(kind: kind, invoke: invoke, complete: ContinuousClock.now, result: result))
                }
                return done
            }
        }
        var all: [Operation] = []
        for await ops in group { all.append(contentsOf: ops) }
        return all
    }
    // Invariants on the final state.
    let active = scheduler.allBookings.filter { $0.status == .active }
    var ok = checkNoDoubleBooking(active)
    for user in T.users where active.filter({ $0.user == user }).count > T.world.limit {
        Issue.record("user \(user) holds more than \(T.world.limit) bookings after the concurrent run")
        ok = false
    }
    do {
        let replayed = try Scheduler(rules: rules, shards: 2, replaying: scheduler.events)
        #expect(replayed.snapshot() == scheduler.snapshot(), "replaying the concurrent journal differs")
    } catch {
        Issue.record("replaying the concurrent journal failed: \(error)")
        ok = false
    }
    // Linearizability, per slot and per user.
    let initialSlots = (0..<4).map { slot in SlotState(occupant: premade.first { $0.1 == slot }?.0, cancelled: []) }
    for slot in 0..<4 {
        let ops = history.filter {
            switch $0.kind {
            case .reserve(let s, _), .cancel(_, let s, _): return s == slot
            }
        }
        switch linearize(ops, from: initialSlots[slot], step: slotStep) {
        case .linearizable: break
        case .notLinearizable:
            Issue.record("history on slot \(slot) is not linearizable:\n\(describe(ops))")
            ok = false
        case .unknown:
            Issue.record("undecided: the search bound was hit for slot \(slot) (\(ops.count) operations)")
            ok = false
        }
    }
    for user in T.users {
        let ops = history.filter {
            switch $0.kind {
            case .reserve(_, let u), .cancel(_, _, let u): return u == user
            }
        }
        let held = premade.filter { $0.2 == user }.count
        let state = UserState(upcoming: held, cancelled: [], limit: T.world.limit)
        switch linearize(ops, from: state, step: userStep) {
        case .linearizable: break
        case .notLinearizable:
            Issue.record("history of user \(user) is not linearizable:\n\(describe(ops))")
            ok = false
        case .unknown:
            Issue.record("undecided: the search bound was hit for user \(user) (\(ops.count) operations)")
            ok = false
        }
    }
    return ok
}

func describe(_ ops: [Operation]) -> String {
    guard let origin = ops.map(\.invoke).min() else { return "(empty)" }
    return ops.sorted { $0.invoke < $1.invoke }.map { op in
        let result: String
        switch op.result {
        case .success(let id): result = "ok \(id)"
        case .failure(let r): result = "refused \(r.reason)"
        }
        return "  [\(origin.duration(to: op.invoke)) … \(origin.duration(to: op.complete))] \(op.kind) -> \(result)"
    }.joined(separator: "\n")
}

// MARK: - Partition models

/// One slot: who holds it, and which of its bookings are cancelled.
struct SlotState: Hashable {
    var occupant: BookingID?
    var cancelled: [BookingID]
}

/// Whether `op` could take effect on `state`, and the state after it. Reservations check the slot
/// before the user's limit, so a `userLimitReached` refusal means the slot was free.
func slotStep(_ state: SlotState, _ op: Operation) -> SlotState? {
    var next = state
    switch (op.kind, op.result) {
    case (.reserve, .success(let id)):
        guard state.occupant == nil else { return nil }
        next.occupant = id
    case (.reserve, .failure(let r)) where r.reason == .slotTaken:
        guard state.occupant != nil else { return nil }
    case (.reserve, .failure(let r)) where r.reason == .userLimitReached:
        guard state.occupant == nil else { return nil }
    case (.reserve, .failure):
        return nil
    case (.cancel(let id, _, _), .success):
        guard state.occupant == id else { return nil }
        next.occupant = nil
        next.cancelled = (next.cancelled + [id]).sorted()
    case (.cancel(let id, _, _), .failure(let r)) where r.reason == .alreadyCancelled:
        guard state.cancelled.contains(id) else { return nil }
    case (.cancel, .failure):
        return nil
    }
    return next
}

/// One user: how many upcoming bookings they hold (all slots are in the future).
struct UserState: Hashable {
    var upcoming: Int
    var cancelled: [BookingID]
    var limit: Int
}

func userStep(_ state: UserState, _ op: Operation) -> UserState? {
    var next = state
    switch (op.kind, op.result) {
    case (.reserve, .success):
        guard state.upcoming < state.limit else { return nil }
        next.upcoming += 1
    case (.reserve, .failure(let r)) where r.reason == .userLimitReached:
        guard state.upcoming >= state.limit else { return nil }
    case (.reserve, .failure(let r)) where r.reason == .slotTaken:
        break  // decided by the slot before the limit is looked at
    case (.reserve, .failure):
        return nil
    case (.cancel(let id, _, _), .success):
        guard !state.cancelled.contains(id) else { return nil }
        next.upcoming -= 1
        next.cancelled = (next.cancelled + [id]).sorted()
    case (.cancel(let id, _, _), .failure(let r)) where r.reason == .alreadyCancelled:
        guard state.cancelled.contains(id) else { return nil }
    case (.cancel, .failure):
        return nil
    }
    return next
}

/// One partition's operations under a step function, as the simulator's checker reads a
/// specification.
struct StepSpecification<State: Hashable>: SequentialSpecification {
    let ops: [Operation]
    let initial: State
    let next: (State, Operation) -> State?
    func step(_ state: State, _ op: Int) -> State? { next(state, ops[op]) }
}

/// Whether `ops` has a sequential order that respects real time and that `step` accepts from
/// `initial`: the Wing–Gong–Lowe search the simulator checks its histories with
/// (``LinearizabilityChecker``), so both are tested by one search.
func linearize<S: Hashable>(
    _ ops: [Operation], from initial: S, step: @escaping (S, Operation) -> S?
) -> LinearizabilityVerdict {
    guard let origin = ops.map(\.invoke).min() else { return .linearizable }
    func nanoseconds(_ t: ContinuousClock.Instant) -> Int64 {
        let d = origin.duration(to: t).components
        return d.seconds * 1_000_000_000 + d.attoseconds / 1_000_000_000
    }
    return LinearizabilityChecker.check(
        StepSpecification(ops: ops, initial: initial, next: step),
        intervals: ops.map { (nanoseconds($0.invoke), nanoseconds($0.complete)) })
}
