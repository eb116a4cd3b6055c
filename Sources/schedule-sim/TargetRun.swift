import Foundation
import SlotScheduler
import SlotSimulation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `schedule-sim run SCENARIO --target URL --adapter FILE`: the scenario's users and workload
/// sent to a live booking API, `concurrency` requests truly in flight (URLSession tasks, not
/// bounded by cores), recorded as a history (``TargetEvent``), then the users' bookings read back
/// and the history checked (``SafetyCheck``; with `rules`, ``RulesCheck`` too).
///
/// The workload: reservations of the scenario's slots (half of them its hot ones, when it has
/// some) with fresh idempotency keys, repeats of earlier reservations with their key, and
/// cancels of bookings the API answered as made, by their owners. The scenario's calendar is
/// shifted so that it starts two days after the target's date (its `Date` header), so a
/// scenario written for 2018 runs against a service on today's clock. With `rules`, the users'
/// bookings are read before the run too, and one reservation in twenty probes the rules: a slot
/// of yesterday or today, beyond a rolling horizon, or in a socket's closed hours.
struct TargetRun {
    let prepared: PreparedScenario
    let adapter: Adapter
    let target: String
    let secret: [UInt8]?
    let concurrency: Int
    let seed: UInt64
    let operations: Int
    /// Whether the run is checked against the rules (`--check rules`): it then probes them.
    var rules = false

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
    }

    /// What the workers share: the history and the bookings the API answered as made.
    final class Shared: Sendable {
        struct State {
            var history: [TargetEvent] = []
            var next = 0
            var booked: [(user: UInt64, booking: String)] = []
            var sent: [(user: UInt64, key: String, slot: Slot)] = []
        }
        let state = Mutex(State())
    }

    func run() async throws -> Outcome {
        let session = Self.session(concurrency: concurrency)
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
        let shared = Shared()
        let started = ContinuousClock.now
        let clock = RulesCheck.TargetClock(
            start: Date().timeIntervalSince1970 + offset.seconds, tolerance: offset.error)
        await withTaskGroup(of: Void.self) { group in
            for process in 0..<concurrency {
                group.addTask {
                    await worker(
                        process, session: session, shared: shared, started: started, firstUser: firstUser,
                        userCount: userCount, slots: slots, hot: hotSlots, probes: probes)
                }
            }
        }
        let seconds = Self.seconds(ContinuousClock.now - started)
        let touched = Set(shared.state.withLock { $0.history.map(\.user) }).sorted()
        let listed = try await readBack(session, users: touched)
        let history = shared.state.withLock { $0.history }.sorted { ($0.time, $0.index) < ($1.time, $1.index) }
        return Outcome(
            history: history, listed: listed, shiftDays: shift, seconds: seconds, users: touched.count, before: before,
            clock: clock)
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
            for extra in 1...3 {
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
        _ process: Int, session: URLSession, shared: Shared, started: ContinuousClock.Instant, firstUser: UInt64,
        userCount: Int, slots: [Slot], hot: [Slot], probes: [Slot]
    ) async {
        while true {
            let index = shared.state.withLock { state -> Int in
                defer { state.next += 1 }
                return state.next
            }
            guard index < operations else { return }
            var rng = SplitMix64(seed: seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15))
            let roll = rng.below(100)
            let pick = shared.state.withLock { state -> Planned in
                if roll < 25, !state.booked.isEmpty {
                    let (user, booking) = state.booked.remove(at: rng.below(state.booked.count))
                    return .cancel(user: user, booking: booking)
                }
                if roll < 40, !state.sent.isEmpty {
                    let (user, key, slot) = state.sent[rng.below(state.sent.count)]
                    return .reserve(user: user, key: key, slot: slot)
                }
                let user = firstUser &+ UInt64(rng.below(userCount))
                let pool = !probes.isEmpty && roll >= 95 ? probes : !hot.isEmpty && rng.chance(0.5) ? hot : slots
                return .reserve(user: user, key: "sim-\(seed)-\(index)", slot: pool[rng.below(pool.count)])
            }
            await perform(pick, index: index, process: process, session: session, shared: shared, started: started)
        }
    }

    private enum Planned {
        case reserve(user: UInt64, key: String, slot: Slot)
        case cancel(user: UInt64, booking: String)
    }

    private func perform(
        _ planned: Planned, index: Int, process: Int, session: URLSession, shared: Shared,
        started: ContinuousClock.Instant
    ) async {
        func now() -> Int64 {
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
        var event: TargetEvent
        var values: Adapter.Values
        let template: Adapter.Request
        switch planned {
        case .reserve(let user, let key, let slot):
            values = Self.values(user: user, slot: slot)
            values.requestID = key
            template = adapter.operations.reserve
            event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "reserve", user: user,
                slot: Self.key(slot), requestID: key, time: 0)
        case .cancel(let user, let booking):
            guard let cancel = adapter.operations.cancel else { return }
            values = Adapter.Values(user: user)
            values.booking = booking
            template = cancel
            event = TargetEvent(
                index: index, process: process, kind: .invoke, operation: "cancel", user: user, booking: booking,
                time: 0)
        }
        event.time = now()
        shared.state.withLock { $0.history.append(event) }
        let answer = await send(session, adapter.render(template, values, token: token(for: values.user)))
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
        if case .reserve(let user, let key, let slot) = planned, done.kind == .ok {
            done.booking = answer.body?.at(adapter.answers.booking)?.text
            if let booking = done.booking {
                shared.state.withLock { state in
                    state.booked.append((user, booking))
                    state.sent.append((user, key, slot))
                }
            }
        }
        shared.state.withLock { $0.history.append(done) }
    }

    // MARK: Reading back

    /// The bookings of `users`, read `concurrency` users at a time, in user order.
    private func readBack(_ session: URLSession, users: [UInt64]) async throws -> [ListedBooking] {
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

    private func readBack(_ session: URLSession, user: UInt64) async throws -> [ListedBooking] {
        let list = adapter.answers.list
        var found: [ListedBooking] = []
        for page in 0..<1_000 {
            var values = Adapter.Values(user: user)
            values.page = page
            let answer = await send(
                session, adapter.render(adapter.operations.bookings, values, token: token(for: user)))
            guard adapter.verdict(status: answer.status) == .accepted, let body = answer.body,
                case .array(let items)? = body.at(list.items)
            else {
                throw TargetFailure(
                    "cannot read user \(user)'s bookings (page \(page)): status \(answer.status.map(String.init) ?? "none")"
                )
            }
            for item in items {
                guard let id = item.at(list.id)?.text, let station = item.at(list.station)?.text,
                    let socket = item.at(list.socket)?.text, let date = item.at(list.date)?.text,
                    let hour = item.at(list.hour)?.text
                else { throw TargetFailure("user \(user)'s bookings: an item without id or slot: \(item)") }
                let live =
                    list.live.map { item.at($0).map { (list.liveValues ?? [.bool(true)]).contains($0) } ?? false }
                    ?? true
                found.append(
                    ListedBooking(id: id, user: user, slot: "\(station)/\(socket)/\(date)/\(hour)", live: live))
            }
            guard let more = list.more, body.at(more) == .bool(true) else { return found }
        }
        return found
    }

    // MARK: HTTP

    static func session(concurrency: Int) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = concurrency
        configuration.timeoutIntervalForRequest = 30
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    /// The answer's status, JSON body and `Date` header; no status when none came.
    private func send(_ session: URLSession, _ rendered: RenderedRequest) async -> (
        status: Int?, body: JSONValue?, date: String?
    ) {
        guard let url = URL(string: target + rendered.path) else { return (nil, nil, nil) }
        var request = URLRequest(url: url)
        request.httpMethod = rendered.method
        for (name, value) in rendered.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = rendered.body
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { return (nil, nil, nil) }
            let body = data.isEmpty ? nil : try? JSONDecoder().decode(JSONValue.self, from: data)
            return (http.statusCode, body, http.value(forHTTPHeaderField: "Date"))
        } catch {
            return (nil, nil, nil)
        }
    }

    private func token(for user: UInt64) -> String? {
        guard adapter.auth?.type == "jwt-hs256", let secret else { return nil }
        let expiry = Int64(Date().timeIntervalSince1970) + 3_600
        return HS256.token(claims: Data(#"{"exp":\#(expiry),"sub":"\#(user)"}"#.utf8), secret: secret)
    }

    // MARK: The calendar

    /// Days to add to the scenario's dates: its clock's date moves to two days after the
    /// target's (from the `Date` header of a first read; the local clock if it sends none). And
    /// how far the target's clock is ahead of this one, in seconds, with the estimate's error:
    /// the header's second is truncated, and the answer took its round trip to come.
    private func shiftDays(_ session: URLSession, user: UInt64) async throws -> (
        days: Int, offset: (seconds: Double, error: Double)
    ) {
        let sent = Date()
        let answer = await send(
            session, adapter.render(adapter.operations.bookings, Adapter.Values(user: user), token: token(for: user)))
        let received = Date()
        guard answer.status != nil else { throw TargetFailure("the target \(target) does not answer") }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        let header = answer.date.flatMap(formatter.date(from:))
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
