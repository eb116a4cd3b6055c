import SlotScheduler

/// The checks of `--check rules`, for an API that claims SlotScheduler's rules, over a history
/// recorded against it (after ``SafetyCheck``'s, which hold whatever the rules):
/// - **bookable when made**: no reservation is answered as made when the reference model
///   refuses its slot (unknown, in the past, too soon, beyond the horizon, closed) at every
///   moment the request was in flight;
/// - **refusals justified**: no reservation is refused for such a reason when the model allows
///   the slot at every such moment, nor for a reason the rules do not have;
/// - **check-in window** and **check-out after check-in**: each booking's session held to the
///   model's (`SessionSpecification`): no first check-in answered as made while its booking's
///   window was shut at every moment the request was in flight, nor refused for a window that was
///   open; no check-out without a check-in (see `RulesCheck+CheckIn.swift`);
/// - **access codes**: no check-in with a wrong code answered as made;
/// - **cutoffs**: no cancel or move answered as made after its cutoff, at every moment in flight;
/// - **linearizable per slot** and **per user**: each slot's operations, and each user's, have
///   an order within their real-time intervals that the model's rules accept (a slot is held by
///   one booking at a time; a user's limit is counted at each reservation; a refusal as taken
///   or at the limit is true when it is made; a cancel refused as inactive is).
///
/// The time rules are the model's (`ReferenceModel.slotCheck`) with the
/// calendar shifted as the run shifted it, at the target's clock (``TargetClock``). The model
/// knows the scenario's catalog: the target must serve the same stations, opening hours and
/// policy. Operations with unknown outcomes are resolved as Jepsen does: a reservation by the
/// bookings read back (one of its user's at its slot that no answer named), a cancel by whether
/// its booking is still live. A slot may be held from before the run by someone outside it.
///
/// Cost: linear in the history to partition it (O(*n* log *n*) with the sort), plus the search
/// in each partition (``LinearizabilityChecker``, bounded by `budget` steps each).
public struct RulesCheck {
    /// The target's clock at the run's start, estimated from its `Date` header.
    public struct TargetClock: Sendable, Equatable {
        /// The run's start on the target's clock, in seconds since the epoch.
        public var start: Double
        /// How far the estimate may be off, either way, in seconds.
        public var tolerance: Double

        /// The starts a clock may have: the years 1900...2399, as everywhere in the simulator.
        public static let starts: ClosedRange<Double> = -2_208_988_800...13_569_465_599
        /// The tolerances a clock may have: up to a day.
        public static let tolerances: ClosedRange<Double> = 0...86_400

        /// Whether ``start`` and ``tolerance`` are in their ranges, so that every moment the
        /// checks derive from them is a whole number of seconds an `Int64` holds.
        public var isValid: Bool { Self.starts.contains(start) && Self.tolerances.contains(tolerance) }

        public init(start: Double, tolerance: Double) {
            self.start = start
            self.tolerance = tolerance
        }
    }

    /// What the check found, and how many partitions it searched.
    public struct Result: Sendable {
        public var findings: [SafetyCheck.Finding] = []
        public var partitions = 0
        /// Partitions whose search reached its budget undecided.
        public var unknownPartitions = 0
        /// Partitions not searched: a hold of unknown outcome may or may not have taken their
        /// slot, or counted toward their user's limit.
        public var skippedPartitions = 0
    }

    /// One operation in a partition, and the history's operation it came from.
    struct Entry {
        var operation: BookingOperation
        var call: Int
    }

    let adapter: Adapter
    let clock: TargetClock
    /// The reference model with nothing booked: its answer to a reservation is the static rules'.
    let model: ReferenceModel
    let catalogClock: CatalogClock
    let calls: [Call]
    var result = Result()
    /// Booking numbers (1, 2, …) by the API's id, in the order first seen.
    var numbers: [String: UInt64] = [:]
    /// Each booking's slot and owner.
    var bookings: [UInt64: (slot: Slot, user: UInt64)] = [:]
    var bySlot: [Slot: [Entry]] = [:]
    var byUser: [UInt64: [Entry]] = [:]
    /// Each hold answered as made: its number (among the bookings'), slot and user, by the id
    /// the API gave it, or `#` and its request's index.
    var holds: [String: (number: UInt64, slot: Slot, user: UInt64)] = [:]
    /// Slots and users with a hold, or a move, of unknown outcome (a move's when its booking is read
    /// back neither where it was nor where it went): their partitions are not searched.
    var unsureSlots = Set<Slot>()
    var unsureUsers = Set<UInt64>()
    /// Each booking's session: what made, moved, checked in, checked out or cancelled it.
    var bySession: [UInt64: [Entry]] = [:]
    /// Bookings a check-in or check-out named: their sessions are searched.
    var namedSessions = Set<UInt64>()
    /// The moves of each booking, by the API's id: their places in ``calls``, in order.
    var movesOf: [String: [Int]] = [:]

    /// An operation's invocation and its completion (none: it never completed).
    struct Call {
        var invoke: TargetEvent
        var done: TargetEvent?
        var slot: Slot?

        /// Its idempotency key, for a reservation that sent one.
        var requestKey: RequestKey? {
            guard ["reserve", "anySocket"].contains(invoke.operation), let key = invoke.requestID else { return nil }
            return RequestKey(user: invoke.user, key: key, slot: invoke.slot)
        }
    }

    /// A user's idempotency key, sent for one slot: every reservation with it makes one booking
    /// at most, whichever of them reaches the API first.
    struct RequestKey: Hashable {
        var user: UInt64
        var key: String
        var slot: String?
    }

    /// Each key's first sending: a booking a repeat is the first to name may have been made by
    /// any earlier request with its key (one whose answer was lost).
    let firstSent: [RequestKey: Int64]
    /// The keys a request was answered as made for: a request with one of them whose outcome is
    /// unknown made nothing new (it is a repeat of that booking, or came after it).
    let answeredKeys: Set<RequestKey>

    /// Checks `history` (with `before`, the users' bookings read before the run, and `listed`,
    /// after it) against the scenario's rules, its calendar shifted by `shiftDays`.
    public static func check(
        history: [TargetEvent], before: [ListedBooking], listed: [ListedBooking], prepared: PreparedScenario,
        shiftDays: Int, adapter: Adapter, clock: TargetClock, budget: Int = 200_000
    ) -> Result {
        var check = RulesCheck(
            history: history, prepared: prepared, shiftDays: shiftDays, adapter: adapter, clock: clock)
        check.run(before: before, listed: listed, budget: budget)
        return check.result
    }

    init(history: [TargetEvent], prepared: PreparedScenario, shiftDays: Int, adapter: Adapter, clock: TargetClock) {
        var policy = prepared.rules.policy
        if case .lastDate(let last) = policy.horizon { policy.horizon = .lastDate(last.adding(days: shiftDays)) }
        let catalog = prepared.rules.catalog
        catalogClock = CatalogClock(catalog)
        model = ReferenceModel(stations: catalog.stations, policy: policy, clock: catalogClock)
        self.adapter = adapter
        self.clock = clock
        var invocations: [Int: TargetEvent] = [:]
        var completions: [Int: TargetEvent] = [:]
        for event in history {
            if event.kind == .invoke { invocations[event.index] = event } else { completions[event.index] = event }
        }
        let model = model
        calls = invocations.sorted { ($0.value.time, $0.key) < ($1.value.time, $1.key) }.map {
            Call(invoke: $0.value, done: completions[$0.key], slot: $0.value.slot.flatMap { Self.slot($0, in: model) })
        }
        var firstSent: [RequestKey: Int64] = [:]
        var answeredKeys = Set<RequestKey>()
        for call in calls {
            // A refused request made nothing: only one answered as made, or not answered, may have.
            guard let key = call.requestKey, call.done?.kind != .fail else { continue }
            firstSent[key] = min(firstSent[key] ?? .max, call.invoke.time)
            if call.done?.kind == .ok, call.done?.booking != nil { answeredKeys.insert(key) }
        }
        self.firstSent = firstSent
        self.answeredKeys = answeredKeys
    }

    /// A slot key `station/socket/date/hour` read back, the station and socket found in the
    /// catalog (either may hold a `/`).
    static func slot(_ key: String, in model: ReferenceModel) -> Slot? {
        let parts = key.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, let hour = Int(parts[parts.count - 1]),
            let date = try? LocalDate(parsing: parts[parts.count - 2])
        else { return nil }
        let names = parts[..<(parts.count - 2)]
        var fallback: Slot?
        for cut in 1..<names.count {
            let slot = Slot(
                station: StationID(names[..<(names.startIndex + cut)].joined(separator: "/")),
                socket: SocketID(names[(names.startIndex + cut)...].joined(separator: "/")), date: date, hour: hour)
            if model.unresolved(slot) == nil { return slot }
            fallback = fallback ?? slot
        }
        return fallback
    }

    mutating func number(_ id: String) -> UInt64 {
        if let n = numbers[id] { return n }
        let n = UInt64(numbers.count + 1)
        numbers[id] = n
        return n
    }

    mutating func run(before: [ListedBooking], listed: [ListedBooking], budget: Int) {
        var initialHolder: [Slot: UInt64] = [:]
        var initialHeld: [UInt64: [(id: UInt64, start: Int64)]] = [:]
        var initialStarts: [UInt64: Int64] = [:]
        for booking in before where booking.live {
            guard let slot = Self.slot(booking.slot, in: model) else { continue }
            let n = number(booking.id)
            bookings[n] = (slot, booking.user)
            initialHolder[slot] = n
            initialStarts[n] = catalogClock.start(of: slot)
            initialHeld[booking.user, default: []].append((n, initialStarts[n] ?? 0))
        }
        let resolved = resolutions(before: before, listed: listed)
        let endsAt = Dictionary(listed.map { ($0.id, $0.slot) }, uniquingKeysWith: { first, _ in first })
        for (k, call) in calls.enumerated() where call.invoke.operation == "reschedule" {
            if let id = call.invoke.booking { movesOf[id, default: []].append(k) }
        }
        let lastMove = movesOf.compactMapValues(\.last)
        for (k, call) in calls.enumerated() {
            switch call.invoke.operation {
            case "reserve", "anySocket": reserve(k, call, resolved: resolved[k])
            case "reschedule": reschedule(k, call, endsAt: endsAt, lastMove: lastMove)
            case "cancel", "checkOut": cancel(k, call, live: listed)
            case "hold": hold(k, call)
            case "confirm": confirm(k, call, resolved: resolved[k])
            case "release": release(k, call)
            case "checkIn": checkIn(k, call)
            default: break
            }
        }
        result.skippedPartitions = unsureSlots.count + unsureUsers.count
        let holdsEnd = earlierHoldsEnd
        for (slot, entries) in bySlot.sorted(by: { $0.key < $1.key }) where !unsureSlots.contains(slot) {
            let initial = initialHolder[slot] ?? 0
            search(entries, name: "slot \(slot)", invariant: "linearizable per slot") { ops in
                let verdict = Self.verdict(SlotSpecification(ops, initial: initial), ops, budget: budget)
                // Free at the start, or booked or held from before the run by someone outside it.
                guard verdict == .notLinearizable, initial == 0 else { return verdict }
                let booked = Self.verdict(SlotSpecification(ops, initial: Self.outsider), ops, budget: budget)
                guard booked == .notLinearizable else { return booked }
                return Self.verdictWithAnEarlierHold(ops, until: holdsEnd, budget: budget)
            }
        }
        let holdLimit = model.rules.policy.maxHoldsPerUser
        // A target used before the run may still hold slots for its users (see ``earlierHoldsEnd``).
        let usedBefore = !before.isEmpty
        for (user, entries) in byUser.sorted(by: { $0.key < $1.key }) where !unsureUsers.contains(user) {
            let initial = UserSpecification.Held(initialHeld[user] ?? [])
            let earlier = usedBefore ? earlierHolds(of: user) : []
            search(entries, name: "user \(user)", invariant: "linearizable per user") { ops in
                let verdict = Self.verdict(
                    UserSpecification(ops, initial: initial, noShowRules: nil, holdLimit: holdLimit), ops,
                    budget: budget)
                guard verdict == .notLinearizable, !earlier.isEmpty else { return verdict }
                return Self.verdictWithEarlierHolds(
                    ops, holds: earlier, initial: initial, holdLimit: holdLimit, until: holdsEnd, budget: budget)
            }
        }
        searchSessions(initialStarts: initialStarts, budget: budget)
    }

    // MARK: Operations

    /// The model's static refusal of `slot` at `now` (seconds on the target's clock), if any.
    func refusal(_ slot: Slot, at now: Int64) -> Rejection.Reason? { model.slotCheck(slot, reminder: nil, now: now).0 }

    /// The moments the call may have taken effect at, on the target's clock: from its invocation
    /// to its completion, widened by the clock's tolerance.
    func moments(_ call: Call) -> (first: Int64, last: Int64) {
        moments(from: call.invoke.time, to: call.done?.time ?? call.invoke.time)
    }

    /// The moments on the target's clock between two times of the run, widened by the tolerance.
    func moments(from invoke: Int64, to complete: Int64) -> (first: Int64, last: Int64) {
        let first = clock.start + Double(invoke) / 1e9 - clock.tolerance
        let last = clock.start + Double(complete) / 1e9 + clock.tolerance
        return (Int64(first.rounded(.down)), Int64(last.rounded(.up)))
    }

    /// The rules' answer to `slot` over the moments: refused at every one (the time rules are
    /// monotone in `now`: past and notice refuse from some moment on, the horizon until one).
    func refusedThroughout(_ slot: Slot, _ moments: (first: Int64, last: Int64)) -> Rejection.Reason? {
        guard let early = refusal(slot, at: moments.first), let late = refusal(slot, at: moments.last) else {
            return nil
        }
        let horizon: Set<Rejection.Reason> = [.beyondHorizon]
        return horizon.contains(early) == horizon.contains(late) || early == late ? early : nil
    }

    /// A reservation, or an any-socket request (its slot the one its answer names, or for an
    /// unknown outcome the booking read back).
    mutating func reserve(_ k: Int, _ call: Call, resolved: (id: String, slot: Slot)?) {
        let anySocket = call.invoke.operation == "anySocket"
        let answered = call.done?.kind == .ok ? call.done?.slot.flatMap { Self.slot($0, in: model) } : nil
        guard let slot = resolved?.slot ?? (anySocket ? answered : call.slot) else { return }
        let user = call.invoke.user
        let (first, last) = moments(call)
        var op = BookingOperation(
            kind: .neutral, user: user, now: last, start: catalogClock.start(of: slot) ?? .min,
            limit: Int32(clamping: model.rules.limit(for: UserID(user))), invoke: call.invoke.time,
            complete: call.done?.time ?? .max)
        guard let done = call.done, done.kind != .info else {
            // Unknown: made, with the booking read back that no answer named, or not at all.
            guard let resolved else { return }
            op.booking = number(resolved.id)
            op.kind = .reserved
            op.complete = .max
            bookings[op.booking] = (slot, user)
            add(op, call: k, slot: slot, user: user)
            return
        }
        switch done.kind {
        case .ok:
            guard let id = done.booking else { return }
            let known = numbers[id] != nil
            op.booking = number(id)
            op.kind = known ? .repeated : .reserved
            if !known {
                // Made by this request, or by an earlier one with its key whose answer was lost.
                op.invoke = call.requestKey.flatMap { firstSent[$0] } ?? op.invoke
                bookings[op.booking] = (slot, user)
                judgeMade(
                    slot, "booking \(id) of \(slot) was answered as made",
                    (moments(from: op.invoke, to: done.time).first, last), call: k)
            }
        case .fail where done.reason == TargetEvent.retryLater: return
        case .fail where anySocket:
            // Refused for a station, date and hour, not for one slot: nothing to hold a slot to.
            return
        case .fail:
            guard let reason = adapter.reason(done.reason) else {
                result.findings.append(
                    finding(
                        "refusals justified",
                        "the reservation of \(slot) was refused (\(done.reason ?? "status \(done.status.map(String.init) ?? "?")")) for a reason the rules do not have",
                        [k]))
                return
            }
            guard classify(reason, &op, slot, "the reservation of \(slot)", (first, last), call: k) else { return }
        case .invoke, .info: return
        }
        add(op, call: k, slot: slot, user: user)
    }

    /// A refusal of taking `slot` (`what`: a reservation or a hold), made the operation the
    /// partitions search (`op`, and `true`): refused as taken, or at the limit (the slot free).
    /// A refusal for a static reason is judged here (``judgeRefusal(_:_:_:_:call:)``), and one
    /// for another reason says nothing checked (both `false`).
    mutating func classify(
        _ reason: Rejection.Reason, _ op: inout BookingOperation, _ slot: Slot, _ what: String,
        _ moments: (first: Int64, last: Int64), call k: Int
    ) -> Bool {
        switch reason {
        case .slotTaken, .slotHeld, .noMatchingSocketFree: op.kind = .refusedTaken
        case .userLimitReached:
            op.kind = .refusedLimit
            op.now = moments.first
        case _ where Self.isStatic(reason):
            judgeRefusal(reason, slot, what, moments, call: k)
            return false
        default: return false
        }
        return true
    }

    /// *Bookable when made*: `what` (a booking made or moved to `slot`) is a finding when the
    /// rules refuse the slot at every one of the `moments`.
    mutating func judgeMade(_ slot: Slot, _ what: String, _ moments: (first: Int64, last: Int64), call k: Int) {
        guard let reason = refusedThroughout(slot, moments) else { return }
        result.findings.append(
            finding(
                "bookable when made",
                "\(what), but the rules refuse it (\(reason.rawValue)) at every moment the request was in flight",
                [k]))
    }

    /// *Refusals justified*: `what`, refused for a static `reason`, is a finding when the rules
    /// allow `slot` at both ends of the `moments` (so, being monotone, at every one between).
    mutating func judgeRefusal(
        _ reason: Rejection.Reason, _ slot: Slot, _ what: String, _ moments: (first: Int64, last: Int64), call k: Int
    ) {
        guard refusal(slot, at: moments.first) == nil, refusal(slot, at: moments.last) == nil else { return }
        result.findings.append(
            finding(
                "refusals justified",
                "\(what) was refused as \(reason.rawValue), but the rules allow it at every moment the request was in flight",
                [k]))
    }

    /// Reasons that depend on the slot and the clock alone, not on what is booked.
    static func isStatic(_ reason: Rejection.Reason) -> Bool {
        switch reason {
        case .unknownStation, .unknownSocket, .invalidHour, .unsupportedDate, .nonexistentLocalTime, .slotInPast,
            .tooSoon, .beyondHorizon, .socketClosed, .outsideOpeningHours:
            true
        default: false
        }
    }

    mutating func cancel(_ k: Int, _ call: Call, live listed: [ListedBooking]) {
        guard let id = call.invoke.booking, let n = numbers[id], let (slot, owner) = bookings[n],
            owner == call.invoke.user
        else { return }
        let checkOut = call.invoke.operation == "checkOut"
        switch call.done?.kind {
        case .ok: addSession(checkOut ? .checkedOut : .released, booking: n, call: k)
        case .fail where checkOut && adapter.reason(call.done?.reason) == .notCheckedIn:
            addSession(.refusedNotCheckedIn, booking: n, call: k)
        case .fail where !checkOut && adapter.reason(call.done?.reason) == .cancellationCutoffPassed:
            addSession(.refusedCancelCutoff, booking: n, call: k)
        default: break
        }
        var op = BookingOperation(
            kind: .released, booking: n, user: owner, now: moments(call).last, invoke: call.invoke.time,
            complete: call.done?.time ?? .max)
        op.start = catalogClock.start(of: slot) ?? 0
        switch call.done?.kind {
        case .ok: break
        case .fail where call.done?.reason == TargetEvent.retryLater: return
        case .fail:
            // A check-out refused as not checked in says nothing of whether the booking is live.
            guard let reason = adapter.reason(call.done?.reason),
                [.alreadyCancelled, .alreadyCheckedOut, .unknownBooking].contains(reason)
            else { return }
            op.kind = .refusedInactive
        case nil, .info, .invoke:
            // Unknown: it happened if the booking is not live at the end.
            guard !listed.contains(where: { $0.id == id && $0.live }) else { return }
            op.complete = .max
        }
        add(op, call: k, slot: slot, user: owner)
    }

    /// For each reservation, any-socket request or confirm with an unknown outcome (by its place in
    /// ``calls``), the booking read back that it made: one of its user's at its slot (any socket
    /// of its station, for an any-socket request) that no answer named and that was not there
    /// before the run (`before`, live or not: a booking an earlier run made and cancelled is
    /// listed again after this one), the earliest request taking the first.
    func resolutions(before: [ListedBooking], listed: [ListedBooking]) -> [Int: (id: String, slot: Slot)] {
        var named = Set(before.map(\.id))
        for call in calls { if let id = call.done?.booking { named.insert(id) } }
        struct Place: Hashable {
            var user: UInt64
            var station: StationID
            var socket: SocketID?
            var date: LocalDate
            var hour: Int
        }
        var unnamed: [Place: [(id: String, slot: Slot)]] = [:]
        for booking in listed where !named.contains(booking.id) && numbers[booking.id] == nil {
            guard let slot = Self.slot(booking.slot, in: model) else { continue }
            for socket in [slot.socket, nil] {
                let place = Place(
                    user: booking.user, station: slot.station, socket: socket, date: slot.date, hour: slot.hour)
                unnamed[place, default: []].append((booking.id, slot))
            }
        }
        var taken = Set<String>()
        var resolved: [Int: (id: String, slot: Slot)] = [:]
        for (k, call) in calls.enumerated()
        where ["reserve", "anySocket", "confirm"].contains(call.invoke.operation)
            && (call.done == nil || call.done?.kind == .info)
        {
            // A repeat of a key answered as made made nothing new.
            guard let slot = call.slot, !(call.requestKey.map { answeredKeys.contains($0) } ?? false) else { continue }
            let anySocket = call.invoke.operation == "anySocket"
            let place = Place(
                user: call.invoke.user, station: slot.station, socket: anySocket ? nil : slot.socket, date: slot.date,
                hour: slot.hour)
            guard let found = unnamed[place]?.first(where: { !taken.contains($0.id) }) else { continue }
            taken.insert(found.id)
            resolved[k] = found
        }
        return resolved
    }

    /// A move of a booking to another slot: out of its slot and into the new one (a `moved`
    /// operation, limited by the user's other bookings). With an unknown outcome it is resolved
    /// by where the booking was read back (`endsAt`): moved if there; not moved if still where
    /// it was and no later move (`lastMove`) named it; else neither slot nor its owner is
    /// searched. The workload moves a booking only while nothing else changes it, so its slot
    /// before the move is where the moves answered before it left it.
    mutating func reschedule(_ k: Int, _ call: Call, endsAt: [String: String], lastMove: [String: Int]) {
        guard let id = call.invoke.booking, let n = numbers[id], let (from, owner) = bookings[n],
            owner == call.invoke.user, let to = call.slot
        else { return }
        let (first, last) = moments(call)
        let unknown = call.done == nil || call.done?.kind == .info
        if unknown, from != to {
            // Resolved by where its booking is read back: moved if there, not moved if still
            // where it was and nothing moved it later; else its slots and owner are not searched.
            let end = endsAt[id].flatMap { Self.slot($0, in: model) }
            if end == from, lastMove[id] == k { return }
            guard end == to else {
                unsureSlots.formUnion([from, to])
                unsureUsers.insert(owner)
                return
            }
        }
        var op = BookingOperation(
            kind: .moved, booking: n, user: owner, now: last, start: catalogClock.start(of: to) ?? .min,
            limit: Int32(clamping: model.rules.limit(for: UserID(owner))), invoke: call.invoke.time,
            complete: unknown ? .max : call.done?.time ?? .max)
        if let done = call.done, done.kind == .fail {
            guard done.reason != TargetEvent.retryLater, let reason = adapter.reason(done.reason) else { return }
            switch reason {
            case .slotTaken, .slotHeld:
                op.kind = .refusedTaken
                bySlot[to, default: []].append(Entry(operation: op, call: k))
            case .rescheduleCutoffPassed: addSession(.refusedMoveCutoff, booking: n, call: k)
            case _ where Self.isStatic(reason):
                judgeRefusal(reason, to, "the move of booking \(id) to \(to)", (first, last), call: k)
            default: break
            }
            return
        }
        if !unknown { judgeMade(to, "booking \(id) was moved to \(to)", (first, last), call: k) }
        guard from != to else {
            // Left in its slot: its check-in may be cleared (a new move) or not (a repeat).
            addSession(.movedInPlace, booking: n, call: k)
            return
        }
        var leaving = op
        leaving.kind = .released
        bySlot[from, default: []].append(Entry(operation: leaving, call: k))
        bySlot[to, default: []].append(Entry(operation: op, call: k))
        byUser[owner, default: []].append(Entry(operation: op, call: k))
        // Its session judges the move against its cutoff over the call's moments.
        var session = op
        (session.now, session.latest) = (first, last)
        bySession[n, default: []].append(Entry(operation: session, call: k))
        namedSessions.insert(n)
        bookings[n] = (to, owner)
    }

    mutating func add(_ op: BookingOperation, call: Int, slot: Slot, user: UInt64) {
        bySlot[slot, default: []].append(Entry(operation: op, call: call))
        byUser[user, default: []].append(Entry(operation: op, call: call))
        // A booking made begins its session at its slot's start.
        if op.kind == .reserved || op.kind == .confirmed {
            bySession[op.booking, default: []].append(Entry(operation: op, call: call))
        }
    }

    // MARK: Search

    /// The holder of a slot booked from before the run by someone outside it, whose booking the
    /// run never names.
    static let outsider = UInt64.max

    static func verdict<S: SequentialSpecification>(_ spec: S, _ ops: [BookingOperation], budget: Int)
        -> LinearizabilityVerdict
    {
        LinearizabilityChecker.check(spec, intervals: ops.map { ($0.invoke, $0.complete) }, budget: budget)
    }

    /// Searches one partition; when no order fits, finds the shortest prefix (in invocation
    /// order) that has none, and reports its last operations.
    mutating func search(
        _ entries: [Entry], name: String, invariant: String,
        _ verdict: ([BookingOperation]) -> LinearizabilityVerdict
    ) {
        result.partitions += 1
        let ops = entries.map(\.operation)
        switch verdict(ops) {
        case .linearizable: return
        case .unknown:
            result.unknownPartitions += 1
            return
        case .notLinearizable: break
        }
        // Not linearizable is kept by every longer prefix: the shortest one is found by halving.
        var (low, high) = (1, ops.count)
        while low < high {
            let middle = (low + high) / 2
            if verdict(Array(ops[..<middle])) == .notLinearizable { high = middle } else { low = middle + 1 }
        }
        let shown = entries[max(0, high - 8)..<high].map(\.call)
        let earlier = max(0, high - 8)
        result.findings.append(
            finding(
                invariant,
                "the operations of \(name) have no order the rules accept"
                    + " (the shortest such beginning: \(high) operations; its last \(shown.count) shown"
                    + (earlier > 0 ? ", \(earlier) earlier ones not" : "") + ")",
                shown))
    }

    func finding(_ invariant: String, _ explanation: String, _ indexes: [Int]) -> SafetyCheck.Finding {
        let events = indexes.flatMap { [calls[$0].invoke, calls[$0].done].compactMap { $0 } }.sorted {
            ($0.time, $0.index) < ($1.time, $1.index)
        }
        return SafetyCheck.Finding(invariant: invariant, explanation: explanation, events: events)
    }
}
