import Foundation
import SlotScheduler
import SlotSimulation
import Synchronization

/// `schedule-sim run SCENARIO --target URL --adapter FILE`: the scenario's users and workload
/// sent to a live booking API, `concurrency` requests truly in flight (``TargetHTTP``: async, not
/// bounded by cores), recorded as a history (``TargetEvent``), then the users' bookings read back
/// and the history checked (``SafetyCheck``; with `rules`, ``RulesCheck`` too).
///
/// The workload: reservations of the scenario's slots (half of them its hot ones, when it has
/// some) with fresh idempotency keys, repeats of earlier reservations with their key, and
/// cancels of bookings the API answered as made, by their owners; and, when the adapter names
/// them, any-socket requests, moves of bookings to another slot of their station, reads of one
/// booking, check-ins and check-outs, and holds, each confirmed or released once; and, by other
/// users, cancels and reads of bookings that are not theirs (to be refused as missing ones). A
/// booking is in one change at a time: it leaves the pool while its owner cancels it, checks it
/// out or moves it. The scenario's calendar is
/// shifted so that it starts two days after the target's date (its `Date` header), so a
/// scenario written for 2018 runs against a service on today's clock. With `rules`, the users'
/// bookings are read before the run too, and one reservation in twenty probes the rules: a slot
/// of yesterday or today, at either edge of a rolling horizon, or in a socket's closed hours.
struct TargetRun {
    let prepared: PreparedScenario
    let adapter: Adapter
    /// The instances of the API (one or more, on one ledger), as ``TargetHTTP`` takes them.
    let targets: [String]
    let secret: [UInt8]?
    let concurrency: Int
    let seed: UInt64
    let operations: Int
    /// Whether the run is checked against the rules (`--check rules`): it then probes them.
    var rules = false
    /// Each user's signed token (``token(for:)``).
    let tokens = Tokens()

    /// Each user's JWT and when to sign a new one: a token is reused while more than half of its
    /// hour is left, since signing one (SHA-256, written here without a package) costs more
    /// than sending a request.
    final class Tokens: Sendable {
        let signed = Mutex<[UInt64: (token: String, renewal: Int64)]>([:])
    }

    /// What a run recorded and read back.
    struct Outcome {
        var history: [TargetEvent]
        var listed: [ListedBooking]
        var shiftDays: Int
        var seconds: Double
        var users: Int
        /// The users' bookings before the run (read with `rules` only).
        var before: [ListedBooking] = []
        /// The run's start on the target's clock.
        var clock: RulesCheck.TargetClock
        /// Where the API lists each station after a run whose check-outs moved vehicles.
        var places: [StationPlace] = []
    }

    /// What the workers share: the next operation's number, each worker's history, and the
    /// bookings the API answered as made. Each worker writes its own history (its lock is never
    /// contended), so the workers meet only to draw an operation.
    final class Shared: Sendable {
        let next = Atomic<Int>(0)
        let histories: [History]

        /// One worker's events.
        final class History: Sendable {
            let events = Mutex<[TargetEvent]>([])
        }

        init(workers: Int) { histories = (0..<workers).map { _ in History() } }

        /// Every worker's history, in one list.
        var history: [TargetEvent] { histories.flatMap { $0.events.withLock { $0 } } }

        struct State {
            var booked: [(user: UInt64, booking: String, slot: Slot)] = []
            /// Every booking ever put in `booked`: a repeat's answer does not put it there twice.
            var known = Set<String>()
            var sent: [(user: UInt64, key: String, slot: Slot)] = []
            /// Holds answered as made and not yet confirmed or released (id: as answered, when
            /// the adapter reads one).
            var held: [(user: UInt64, hold: String?, slot: Slot, index: Int)] = []
        }
        let state = Mutex(State())
    }

    func run() async throws -> Outcome {
        let session = TargetHTTP(concurrency: concurrency, targets: targets)
        do {
            let outcome = try await run(session)
            await session.shutdown()
            return outcome
        } catch {
            await session.shutdown()
            throw error
        }
    }

    private func run(_ session: TargetHTTP) async throws -> Outcome {
        let firstUser = prepared.scenario.users.firstID ?? 1
        let userCount = max(1, prepared.scenario.users.count)
        let (shift, offset) = try await shiftDays(session, user: firstUser)
        let (all, hot) = prepared.workloadSlots
        let slots = all.map { shifted($0, by: shift) }
        let hotSlots = hot.map { shifted($0, by: shift) }
        guard !slots.isEmpty else { throw TargetFailure("the scenario's workload aims at no slot") }
        let users = (0..<UInt64(userCount)).map { firstUser &+ $0 }
        let before = rules ? try await readBack(session, users: users) : []
        let probes = rules ? probeSlots(slots, shift: shift) : []
        let shared = Shared(workers: concurrency)
        let started = ContinuousClock.now
        let clock = RulesCheck.TargetClock(
            start: Date().timeIntervalSince1970 + offset.seconds, tolerance: offset.error)
        await withTaskGroup(of: Void.self) { group in
            for process in 0..<concurrency {
                group.addTask(executorPreference: session.executor(for: process)) {
                    await worker(
                        process, session: session, shared: shared, started: started, firstUser: firstUser,
                        userCount: userCount, slots: slots, hot: hotSlots, probes: probes,
                        run: Int64(clock.start.rounded(.down)))
                }
            }
        }
        let seconds = Self.seconds(ContinuousClock.now - started)
        var recorded = shared.history
        let touched = Set(recorded.map(\.user)).sorted()
        let listed = try await readBack(session, users: touched)
        recorded += await listsReadByOthers(session, users: touched, started: started)
        let history = recorded.sorted { ($0.time, $0.index) < ($1.time, $1.index) }
        let moved = history.contains { $0.operation == "checkOut" && $0.leftAt != nil && $0.kind != .invoke }
        return Outcome(
            history: history, listed: listed, shiftDays: shift, seconds: seconds, users: touched.count, before: before,
            clock: clock, places: moved ? try await readPlaces(session, user: firstUser) : [])
    }

    /// Slots the rules refuse, or may (the check decides with the model): yesterday's and
    /// today's hours at the workload's first socket, dates beyond a rolling horizon, and the
    /// closed hours of the workload's sockets on its first date.
    func probeSlots(_ slots: [Slot], shift: Int) -> [Slot] {
        guard let first = slots.first else { return [] }
        let start = prepared.scenario.clock.start.instant.secondsSinceEpoch
        let startDay = start / 86_400 - (start % 86_400 < 0 ? 1 : 0)
        let today = LocalDate(dayNumber: Int32(clamping: startDay + Int64(shift) - 2))
        var probes: [Slot] = []
        for day in [-1, 0] {
            for hour in 0..<24 {
                probes.append(
                    Slot(station: first.station, socket: first.socket, date: today.adding(days: day), hour: hour))
            }
        }
        if case .rollingDays(let days) = prepared.rules.policy.horizon {
            // Its edge on both sides: an off-by-one that refuses the last day in it, or books the
            // first beyond it.
            for extra in -1...3 {
                probes.append(
                    Slot(station: first.station, socket: first.socket, date: today.adding(days: days + extra), hour: 12)
                )
            }
        }
        var seen = Set<String>()
        for slot in slots where seen.insert("\(slot.station)/\(slot.socket)").inserted {
            guard let station = prepared.rules.catalog.stations.first(where: { $0.id == slot.station }),
                let socket = station.sockets.first(where: { $0.id == slot.socket })
            else { continue }
            let open = socket.openingHours ?? station.openingHours
            for hour in 0..<24 where !open.contains(hour) {
                probes.append(Slot(station: slot.station, socket: slot.socket, date: first.date, hour: hour))
            }
        }
        return probes
    }

    // MARK: The workload

    private func worker(
        _ process: Int, session: TargetHTTP, shared: Shared, started: ContinuousClock.Instant, firstUser: UInt64,
        userCount: Int, slots: [Slot], hot: [Slot], probes: [Slot], run: Int64
    ) async {
        // A wrong code means something only to an API the adapter sends codes to.
        let sendsCodes = adapter.operations.checkIn?.mentions("accessCode") == true
        let movesVehicles = self.movesVehicles  // read once: it encodes the template
        while true {
            let index = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < operations else { return }
            var rng = SplitMix64(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            let roll = rng.below(100)
            let pick = shared.state.withLock { state -> Planned in
                if roll < 25, !state.booked.isEmpty {
                    let (user, booking, _) = state.booked.remove(at: rng.below(state.booked.count))
                    return .cancel(user: user, booking: booking)
                }
                if roll < 40, !state.sent.isEmpty {
                    // A retry; 1 in 15 its key with another slot: another request, which the
                    // API must not answer with the key's first booking.
                    let (user, key, slot) = state.sent[rng.below(state.sent.count)]
                    let other = roll == 39 && slots.count > 1 ? slots[rng.below(slots.count)] : slot
                    return .reserve(user: user, key: key, slot: other)
                }
                let user = firstUser &+ UInt64(rng.below(userCount))
                // The run's start on the target's clock makes its keys its own: a target keeps a
                // key's booking, and a second run with the same seed must not be answered with
                // the first's bookings.
                let key = "sim-\(seed)-\(run)-\(index)"
                let ops = adapter.operations
                if (40..<48).contains(roll), ops.anySocket != nil {
                    return .anySocket(user: user, key: key, slot: slots[rng.below(slots.count)])
                }
                if (48..<54).contains(roll), ops.reschedule != nil, !state.booked.isEmpty {
                    let (owner, booking, from) = state.booked.remove(at: rng.below(state.booked.count))
                    let here = slots.filter { $0.station == from.station }
                    return .reschedule(
                        user: owner, booking: booking, from: from, to: here[rng.below(here.count)], key: key)
                }
                if (54..<58).contains(roll), ops.booking != nil, !state.booked.isEmpty {
                    let (owner, booking, _) = state.booked[rng.below(state.booked.count)]
                    return .read(user: owner, booking: booking)
                }
                if (58..<63).contains(roll), ops.checkIn != nil, !state.booked.isEmpty {
                    // 1 in 5 with a wrong code, at a socket that has one, when the adapter sends
                    // codes at all: the API must refuse it.
                    let (owner, booking, slot) = state.booked[rng.below(state.booked.count)]
                    return .checkIn(user: owner, booking: booking, slot: slot, wrongCode: roll == 62 && sendsCodes)
                }
                if (63..<67).contains(roll), ops.checkOut != nil, !state.booked.isEmpty {
                    // Out of the pool while it is sent, as a cancel; back in when refused.
                    let (owner, booking, slot) = state.booked.remove(at: rng.below(state.booked.count))
                    // Where the ride ends, when the workload moves vehicles and the adapter says.
                    let leftAt = movesVehicles ? prepared.rideEnd(from: slot.station, &rng) : nil
                    return .checkOut(user: owner, booking: booking, slot: slot, leftAt: leftAt)
                }
                if (67..<73).contains(roll), ops.hold != nil {
                    let pool = !hot.isEmpty && rng.chance(0.5) ? hot : slots
                    return .hold(user: user, key: key, slot: pool[rng.below(pool.count)])
                }
                if (73..<79).contains(roll), ops.confirm != nil || ops.release != nil, !state.held.isEmpty {
                    // Out of the pool for good: a hold is confirmed or released once.
                    let (owner, hold, slot, made) = state.held.remove(at: rng.below(state.held.count))
                    let confirm = ops.release == nil || ops.confirm != nil && roll < 77
                    return .endHold(user: owner, hold: hold, made: made, slot: slot, confirm: confirm, key: key)
                }
                if (79..<82).contains(roll), userCount > 1,
                    ops.cancel != nil || ops.booking != nil || ops.checkIn != nil, !state.booked.isEmpty
                {
                    // Another user's booking, left in the pool: the API must refuse as for a missing
                    // one, a check-in too (sent with the socket's code: knowing it is not owning it).
                    let (owner, booking, slot) = state.booked[rng.below(state.booked.count)]
                    let step = UInt64(1 + rng.below(userCount - 1))
                    let other = firstUser &+ (owner &- firstUser &+ step) % UInt64(userCount)
                    let foreign: [Planned?] = [
                        ops.booking.map { _ in .read(user: other, booking: booking) },
                        ops.cancel.map { _ in .cancel(user: other, booking: booking) },
                        ops.checkIn.map { _ in .checkIn(user: other, booking: booking, slot: slot, wrongCode: false) },
                    ]
                    let available = foreign.compactMap { $0 }
                    return available[rng.below(available.count)]
                }
                if (82..<86).contains(roll), ops.dayView != nil || ops.stations != nil {
                    // Reads beside the bookings: a hot slot's day, or the station list.
                    let pool = !hot.isEmpty ? hot : slots
                    return ops.dayView != nil && (ops.stations == nil || roll < 85)
                        ? .dayView(user: user, slot: pool[rng.below(pool.count)]) : .stations(user: user)
                }
                let pool = !probes.isEmpty && roll >= 95 ? probes : !hot.isEmpty && rng.chance(0.5) ? hot : slots
                return .reserve(user: user, key: key, slot: pool[rng.below(pool.count)])
            }
            await perform(pick, index: index, process: process, session: session, shared: shared, started: started)
        }
    }

    private enum Planned {
        case reserve(user: UInt64, key: String, slot: Slot)
        /// Any free socket of `slot`'s station with its socket's connector, at its date and hour.
        case anySocket(user: UInt64, key: String, slot: Slot)
        case cancel(user: UInt64, booking: String)
        case reschedule(user: UInt64, booking: String, from: Slot, to: Slot, key: String)
        case read(user: UInt64, booking: String)
        /// A check-in of the user's booking at `slot`, with its socket's code (or, `wrongCode`, with
        /// another).
        case checkIn(user: UInt64, booking: String, slot: Slot, wrongCode: Bool)
        case checkOut(user: UInt64, booking: String, slot: Slot, leftAt: Coordinate?)
        case hold(user: UInt64, key: String, slot: Slot)
        /// A confirm (`confirm`) or release of the user's hold of `slot`, made by operation `made`
        /// (its id `hold` when the API gave one).
        case endHold(user: UInt64, hold: String?, made: Int, slot: Slot, confirm: Bool, key: String)
        /// A read of `slot`'s station's day.
        case dayView(user: UInt64, slot: Slot)
        case stations(user: UInt64)
    }

    private func perform(
        _ planned: Planned, index: Int, process: Int, session: TargetHTTP, shared: Shared,
        started: ContinuousClock.Instant
    ) async {
        func now() -> Int64 { Self.nanoseconds(since: started) }
        let (invocation, values, template) = request(planned, index: index, process: process)
        guard let template else { return }
        var event = invocation
        event.time = now()
        shared.histories[process].events.withLock { $0.append(event) }
        let rendered = adapter.render(template, values, token: token(for: values.user))
        let answer = await session.send(rendered, process: process)
        var done = event
        done.time = now()
        done.status = answer.status
        switch adapter.verdict(status: answer.status) {
        case .accepted: done.kind = .ok
        case .refused: done.kind = .fail
        case .retryLater:
            done.kind = .fail
            done.reason = TargetEvent.retryLater
        case .unknown: done.kind = .info
        }
        if let pointer = adapter.answers.reason, done.kind == .fail, done.reason == nil {
            done.reason = answer.body?.at(pointer)?.text
        }
        switch planned {
        case .reserve(let user, let key, let slot) where done.kind == .ok:
            done.booking = answer.body?.at(adapter.answers.booking)?.text
            if let booking = done.booking {
                shared.state.withLock { state in
                    guard state.known.insert(booking).inserted else { return }
                    state.booked.append((user, booking, slot))
                    state.sent.append((user, key, slot))
                }
            }
        case .anySocket(let user, _, let slot) where done.kind == .ok:
            done.booking = answer.body?.at(adapter.answers.booking)?.text
            let socket = adapter.answers.socket.flatMap { answer.body?.at($0)?.text }
            if let booking = done.booking, let socket {
                let booked = Slot(station: slot.station, socket: SocketID(socket), date: slot.date, hour: slot.hour)
                done.slot = Self.key(booked)
                shared.state.withLock { state in
                    if state.known.insert(booking).inserted { state.booked.append((user, booking, booked)) }
                }
            }
        case .reschedule(let user, let booking, let from, let to, _):
            // Back in the pool where it now is; with an unknown outcome, out of it.
            if done.kind != .info {
                shared.state.withLock { $0.booked.append((user, booking, done.kind == .ok ? to : from)) }
            }
        case .checkOut(let user, let booking, let slot, _) where done.kind == .fail:
            shared.state.withLock { $0.booked.append((user, booking, slot)) }
        case .hold(let user, _, let slot) where done.kind == .ok:
            done.hold = adapter.answers.hold.flatMap { answer.body?.at($0)?.text }
            shared.state.withLock { $0.held.append((user, done.hold, slot, index)) }
        case .endHold(let user, _, _, let slot, true, _) where done.kind == .ok:
            done.booking = answer.body?.at(adapter.answers.booking)?.text
            if let booking = done.booking {
                shared.state.withLock { state in
                    if state.known.insert(booking).inserted { state.booked.append((user, booking, slot)) }
                }
            }
        default: break
        }
        shared.histories[process].events.withLock { $0.append(done) }
        if answer.status == nil {
            // No answer: its instance may be down or restarting; a worker that sent again at once
            // would spend the run's operations on calls that cannot be answered.
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The invocation, the placeholders' values and the template of a planned request (no
    /// template: the adapter does not name the operation).
    private func request(_ planned: Planned, index: Int, process: Int) -> (
        TargetEvent, Adapter.Values, Adapter.Request?
    ) {
        let operations = adapter.operations
        switch planned {
        case .reserve(let user, let key, let slot):
            let (event, values) = Self.taking("reserve", user: user, key: key, slot: slot, index, process)
            return (event, values, operations.reserve)
        case .anySocket(let user, let key, let slot):
            var values = Self.values(user: user, slot: slot)
            values.requestID = key
            values.connector = connector(of: slot)
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "anySocket", user: user,
                slot: "\(slot.station.rawValue)/*/\(slot.date)/\(slot.hour)", requestID: key, time: 0)
            return (event, values, operations.anySocket)
        case .cancel(let user, let booking):
            var values = Adapter.Values(user: user)
            values.booking = booking
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "cancel", user: user, booking: booking,
                time: 0)
            return (event, values, operations.cancel)
        case .reschedule(let user, let booking, _, let to, let key):
            var values = Self.values(user: user, slot: to)
            values.booking = booking
            values.requestID = key
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "reschedule", user: user,
                slot: Self.key(values), requestID: key, booking: booking, time: 0)
            return (event, values, operations.reschedule)
        case .read(let user, let booking):
            var values = Adapter.Values(user: user)
            values.booking = booking
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "read", user: user, booking: booking,
                time: 0)
            return (event, values, operations.booking)
        case .checkIn(let user, let booking, let slot, let wrongCode):
            var (event, values) = Self.session("checkIn", user: user, booking: booking, slot: slot, index, process)
            values.accessCode = socket(of: slot)?.accessCode
            if wrongCode, let code = values.accessCode {
                values.accessCode = code + "-wrong"
                event.wrongCode = true
            }
            return (event, values, operations.checkIn)
        case .checkOut(let user, let booking, let slot, let leftAt):
            var (event, values) = Self.session("checkOut", user: user, booking: booking, slot: slot, index, process)
            event.leftAt = leftAt
            values.leftAt = leftAt
            return (event, values, operations.checkOut)
        case .hold(let user, let key, let slot):
            let (event, values) = Self.taking("hold", user: user, key: key, slot: slot, index, process)
            return (event, values, operations.hold)
        case .endHold(let user, let hold, let made, let slot, let confirm, let key):
            var values = Self.values(user: user, slot: slot)
            values.hold = hold ?? ""
            values.requestID = key
            // The history names the hold as the checks know it: by its id, or its request.
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: confirm ? "confirm" : "release", user: user,
                slot: Self.key(values), requestID: key, hold: RulesCheck.holdKey(hold, index: made), time: 0)
            return (event, values, confirm ? operations.confirm : operations.release)
        case .dayView(let user, let slot):
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "dayView", user: user,
                slot: "\(slot.station.rawValue)/*/\(slot.date)/*", time: 0)
            return (event, Self.values(user: user, slot: slot), operations.dayView)
        case .stations(let user):
            let event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "stations", user: user, time: 0)
            return (event, Adapter.Values(user: user), operations.stations)
        }
    }

    /// The invocation and placeholders of a reservation or hold of `slot` with key `key`.
    private static func taking(
        _ operation: String, user: UInt64, key: String, slot: Slot, _ index: Int, _ process: Int
    ) -> (TargetEvent, Adapter.Values) {
        var values = values(user: user, slot: slot)
        values.requestID = key
        let event = TargetEvent(
            index: index, process: process, kind: .invoke, operation: operation, user: user, slot: Self.key(values),
            requestID: key, time: 0)
        return (event, values)
    }

    /// The invocation and placeholders of a check-in or check-out of `booking` at `slot`.
    private static func session(
        _ operation: String, user: UInt64, booking: String, slot: Slot, _ index: Int, _ process: Int
    ) -> (TargetEvent, Adapter.Values) {
        var values = Adapter.Values(user: user)
        values.booking = booking
        let event = TargetEvent(
            index: index, process: process, kind: .invoke, operation: operation, user: user, slot: key(slot),
            booking: booking, time: 0)
        return (event, values)
    }

    /// The connector of `slot`'s socket in the scenario's catalog.
    private func connector(of slot: Slot) -> String { socket(of: slot)?.connector.rawValue ?? "" }

    /// `slot`'s socket in the scenario's catalog.
    private func socket(of slot: Slot) -> Socket? {
        let station = prepared.rules.catalog.stations.first { $0.id == slot.station }
        return station?.sockets.first { $0.id == slot.socket }
    }

    // MARK: Reading back

    /// The bookings of `users`, read `concurrency` users at a time, in user order.
    private func readBack(_ session: TargetHTTP, users: [UInt64]) async throws -> [ListedBooking] {
        var found: [[ListedBooking]] = []
        var start = 0
        while start < users.count {
            let batch = users[start..<min(users.count, start + max(1, concurrency))]
            start += batch.count
            found += try await withThrowingTaskGroup(of: (Int, [ListedBooking]).self) { group in
                for (k, user) in batch.enumerated() {
                    group.addTask { (k, try await readBack(session, user: user)) }
                }
                var lists = [[ListedBooking]](repeating: [], count: batch.count)
                for try await (k, list) in group { lists[k] = list }
                return lists
            }
        }
        return found.flatMap { $0 }
    }

    /// Nobody reads another user's bookings: the first page of each of the first eight users'
    /// lists, asked for by the next user, when the list's request names its user. Each booking it
    /// shows is recorded as a `list` of it by that user answered as made (``SafetyCheck`` finds
    /// the ones that are not theirs); a refusal is what should happen, and records nothing.
    private func listsReadByOthers(_ session: TargetHTTP, users: [UInt64], started: ContinuousClock.Instant) async
        -> [TargetEvent]
    {
        let request = adapter.operations.bookings
        guard users.count > 1, request.path.contains("{user}") else { return [] }
        var events: [TargetEvent] = []
        for (k, owner) in users.prefix(8).enumerated() {
            let caller = users[(k + 1) % users.count]
            var values = Adapter.Values(user: owner)
            values.caller = caller
            let answer = await read(session, adapter.render(request, values, token: token(for: caller))).answer
            guard adapter.verdict(status: answer.status) == .accepted,
                case .array(let items)? = answer.body?.at(adapter.answers.list.items)
            else { continue }
            let time = Self.nanoseconds(since: started)
            for id in items.compactMap({ $0.at(adapter.answers.list.id)?.text }) {
                let event = TargetEvent(
                    index: operations + events.count, process: -1, kind: .invoke, operation: "list", user: caller,
                    booking: id, time: time)
                var shown = event
                shown.kind = .ok
                shown.status = answer.status
                events += [event, shown]
            }
        }
        return events
    }

    /// Whether check-outs leave vehicles elsewhere: the scenario's workload moves them
    /// (``Workload/leftWithinKm``) and the adapter's check-out sends `{latitude}`.
    var movesVehicles: Bool {
        prepared.scenario.workload?.leftWithinKm != nil && adapter.operations.checkOut?.mentions("latitude") == true
    }

    /// Where the API lists each station (`stations`, read as `user`, through ``Adapter/Answers/places``);
    /// none when the adapter does not say where an answer keeps places (I21 is then not checked).
    private func readPlaces(_ session: TargetHTTP, user: UInt64) async throws -> [StationPlace] {
        guard let request = adapter.operations.stations, let places = adapter.answers.places else { return [] }
        func degrees(_ value: JSONValue?) -> Double? {
            switch value {
            case .number(let number)?: number
            case .integer(let number)?: Double(number)
            default: nil
            }
        }
        return try await pages(
            session, request, user: user, items: places.items, more: places.more, what: "the stations' places"
        ) { item in
            guard let id = item.at(places.id)?.text else {
                throw TargetFailure("the stations' places: an item without an id: \(Self.shown(item))")
            }
            let (latitude, longitude) = (degrees(item.at(places.latitude)), degrees(item.at(places.longitude)))
            return StationPlace(
                station: id, place: latitude.flatMap { la in longitude.map { Coordinate(latitude: la, longitude: $0) } }
            )
        }
    }

    /// The items of every page of `request`'s answer read as `user` (`{page}` 0, 1, … while the
    /// answer's `more` is true; one page without `more`), each made a `T` by `each` as its page
    /// arrives (so a bad item fails at once, and no page is kept as JSON), or a failure naming
    /// `what`: also for an empty page that says more follow, and past ``maxPages`` or ``maxItems``.
    private func pages<T>(
        _ session: TargetHTTP, _ request: Adapter.Request, user: UInt64, items: String, more: String?, what: String,
        each: (JSONValue) throws -> T
    ) async throws -> [T] {
        var found: [T] = []
        for page in 0..<Self.maxPages {
            var values = Adapter.Values(user: user)
            values.page = page
            let answer = await read(session, adapter.render(request, values, token: token(for: user))).answer
            let list = try self.items(of: answer, at: items) { problem in
                TargetFailure("cannot read \(what) (page \(page)): \(problem)")
            }
            guard found.count + list.count <= Self.maxItems else {
                throw TargetFailure("\(what): more than \(Self.maxItems) items")
            }
            found += try list.map(each)
            guard let more, answer.body?.at(more) == .bool(true) else { return found }
            // An empty page that says more follow would be read page after page without end.
            guard !list.isEmpty else { throw TargetFailure("\(what): page \(page) is empty but says more follow") }
        }
        throw TargetFailure("\(what): more than \(Self.maxPages) pages")
    }

    /// The array at `pointer` in an accepted `answer`, or `failure` saying what it is instead:
    /// no answer (and why), a status that is not accepted, a body that is no JSON, no array there.
    private func items(
        of answer: TargetHTTP.Answer, at pointer: String, failure: (String) -> TargetFailure
    ) throws -> [JSONValue] {
        guard let status = answer.status else { throw failure("no answer (\(answer.failure ?? "none"))") }
        guard adapter.verdict(status: status) == .accepted else {
            throw failure("status \(status), not one of answers.accepted")
        }
        guard let body = answer.body else { throw failure("status \(status) with a body that is empty or no JSON") }
        guard case .array(let list)? = body.at(pointer) else {
            throw failure(
                "status \(status), but no array at the pointer \(pointer.debugDescription): \(Self.shown(body))")
        }
        return list
    }

    /// The most pages of one list read: past them the answer is refused, not cut short.
    static let maxPages = 1_000
    /// The most items of one list read, all pages together (a booking listed takes about 200
    /// bytes): past them the answer is refused, as an API listing without end would fill memory.
    static let maxItems = 1_000_000

    /// `value` as compact JSON (keys sorted), cut at 200 characters, for a failure's text.
    static func shown(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let text = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        return text.count > 200 ? text.prefix(200) + "…" : text
    }

    private func readBack(_ session: TargetHTTP, user: UInt64) async throws -> [ListedBooking] {
        let list = adapter.answers.list
        var seen = Set<String>()
        return try await pages(
            session, adapter.operations.bookings, user: user, items: list.items, more: list.more,
            what: "user \(user)'s bookings"
        ) { item in
            guard let id = item.at(list.id)?.text, let station = item.at(list.station)?.text,
                let socket = item.at(list.socket)?.text, let date = item.at(list.date)?.text,
                let hour = item.at(list.hour)?.text
            else {
                throw TargetFailure("user \(user)'s bookings: an item without id or slot: \(Self.shown(item))")
            }
            if let problem = slotProblem(station: station, socket: socket, date: date, hour: hour) {
                throw TargetFailure(
                    "user \(user)'s bookings: an item whose slot is none of the scenario's (\(problem)): "
                        + Self.shown(item))
            }
            // A JSON number past 2^53 is read as the nearest double: ids near it become one.
            if case .number(let number)? = item.at(list.id), abs(number) >= 9_007_199_254_740_992 {
                throw TargetFailure(
                    "user \(user)'s bookings: booking id \(number) is a number too large to keep exactly "
                        + "(past 2^53, ids must be strings): \(Self.shown(item))")
            }
            // A booking listed twice (a page repeated) would be read as two bookings of one slot.
            guard seen.insert(id).inserted else {
                throw TargetFailure("user \(user)'s bookings: booking \(id) is listed twice: \(Self.shown(item))")
            }
            let live =
                list.live.map { item.at($0).map { (list.liveValues ?? [.bool(true)]).contains($0) } ?? false }
                ?? true
            return ListedBooking(id: id, user: user, slot: "\(station)/\(socket)/\(date)/\(hour)", live: live)
        }
    }

    /// What makes a listed slot none the scenario has, or nil (an unknown station or socket, a
    /// date that is none, an hour outside 0...23): such an item was counted as a booking of a
    /// slot `1e+20`.
    private func slotProblem(station: String, socket: String, date: String, hour: String) -> String? {
        guard let found = prepared.scenario.stations.first(where: { $0.id.rawValue == station }) else {
            return "station \(station.prefix(40).debugDescription)"
        }
        guard found.sockets.contains(where: { $0.id.rawValue == socket }) else {
            return "socket \(socket.prefix(40).debugDescription)"
        }
        guard (try? LocalDate(parsing: date)) != nil else { return "date \(date.prefix(40).debugDescription)" }
        guard let h = Int(hour), (0...23).contains(h) else { return "hour \(hour.prefix(40))" }
        return nil
    }

    // MARK: HTTP

    /// `rendered`, a read made before or after the run, sent until it is answered: a read changes nothing,
    /// so one that got no answer (a kept-alive connection the target closed as it was reused
    /// after its idle timeout) or a 429 or 5xx is sent again, at most four more times, after
    /// ¼, ½, 1 and 2 seconds (to the next target at each, when there are several). The last
    /// answer is returned, with when it was sent and received.
    private func read(_ session: TargetHTTP, _ rendered: RenderedRequest) async -> (
        answer: TargetHTTP.Answer, sent: Date, received: Date
    ) {
        var sent = Date()
        var answer = await session.send(rendered, attempt: 0)
        for retry in 0..<4 {
            guard Self.isTransient(answer.status) else { break }
            try? await Task.sleep(for: .milliseconds(250 << retry))
            sent = Date()
            answer = await session.send(rendered, attempt: retry + 1)
        }
        return (answer, sent, Date())
    }

    /// An answer a read may get again differently: none, too many requests, or a server error.
    static func isTransient(_ status: Int?) -> Bool {
        guard let status else { return true }
        return status == 429 || (500...599).contains(status)
    }

    /// `user`'s bearer token for a `jwt-hs256` adapter, valid for an hour when signed.
    private func token(for user: UInt64) -> String? {
        guard adapter.auth?.type == "jwt-hs256", let secret else { return nil }
        let now = Int64(Date().timeIntervalSince1970)
        if let cached = tokens.signed.withLock({ $0[user] }), now < cached.renewal { return cached.token }
        let token = HS256.token(claims: Data(#"{"exp":\#(now + 3_600),"sub":"\#(user)"}"#.utf8), secret: secret)
        tokens.signed.withLock { $0[user] = (token, now + 1_800) }
        return token
    }

    // MARK: The calendar

    /// Days to add to the scenario's dates: its clock's date moves to two days after the
    /// target's (from the `Date` header of a first read; the local clock if it sends none). And
    /// how far the target's clock is ahead of this one, in seconds, with the estimate's error:
    /// the header's second is truncated, and the answer took its round trip to come.
    private func shiftDays(_ session: TargetHTTP, user: UInt64) async throws -> (
        days: Int, offset: (seconds: Double, error: Double)
    ) {
        let (answer, sent, received) = await read(
            session, adapter.render(adapter.operations.bookings, Adapter.Values(user: user), token: token(for: user)))
        guard answer.status != nil else {
            let why = answer.failure.map { ": \($0)" } ?? ""
            throw TargetFailure("the target \(targets.joined(separator: ",")) gives no HTTP answer\(why)")
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let header = answer.date.flatMap(formatter.date(from:))
        if let header, !RulesCheck.TargetClock.starts.contains(header.timeIntervalSince1970) {
            // The calendar would move there: dates the scenario and the checks cannot hold.
            throw TargetFailure(
                "the target's Date header \((answer.date ?? "").debugDescription) is outside the years 1900...2399")
        }
        let targetNow = header ?? received
        let targetDay = Int((targetNow.timeIntervalSince1970 / 86_400).rounded(.down))
        let scenarioDay = Int((Double(prepared.scenario.clock.start.instant.secondsSinceEpoch) / 86_400).rounded(.down))
        let roundTrip = received.timeIntervalSince(sent)
        // The target's second began between `sent` and `received`: its clock reads header + ½ s at
        // about their middle, off by at most half a second plus half the round trip (and a
        // second of margin for the clocks' drift over the run).
        let offset = header.map { $0.timeIntervalSince1970 + 0.5 - (sent.timeIntervalSince1970 + roundTrip / 2) } ?? 0
        return (targetDay + 2 - scenarioDay, (offset, 1.5 + roundTrip / 2))
    }

    private func shifted(_ slot: Slot, by days: Int) -> Slot {
        Slot(station: slot.station, socket: slot.socket, date: slot.date.adding(days: days), hour: slot.hour)
    }

    private static func values(user: UInt64, slot: Slot) -> Adapter.Values {
        var values = Adapter.Values(user: user)
        values.station = slot.station.rawValue
        values.socket = slot.socket.rawValue
        values.date = slot.date.description
        values.hour = slot.hour
        return values
    }

    static func key(_ slot: Slot) -> String {
        "\(slot.station.rawValue)/\(slot.socket.rawValue)/\(slot.date)/\(slot.hour)"
    }

    /// ``key(_:)`` of the slot a request's placeholders name (its date already written out,
    /// rather than written again).
    static func key(_ values: Adapter.Values) -> String {
        "\(values.station)/\(values.socket)/\(values.date)/\(values.hour)"
    }

    /// Nanoseconds from `start` to now on the monotonic clock: a history event's time.
    static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A run against a target that could not go on: printed, exit 69.
struct TargetFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
