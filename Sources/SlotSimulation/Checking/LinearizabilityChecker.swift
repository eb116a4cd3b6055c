import SlotScheduler

/// A sequential specification for the WGL search: a state and a partial step function.
public protocol SequentialSpecification {
    associatedtype State: Hashable
    var initial: State { get }
    /// The state after `op`, or `nil` if `op`'s recorded result is impossible in `state`.
    func step(_ state: State, _ op: Int) -> State?
}

/// The result of a linearizability search.
public enum LinearizabilityVerdict: String, Sendable, Codable {
    case linearizable
    case notLinearizable = "not linearizable"
    /// The search reached its bound before deciding.
    case unknown
}

/// The Wing–Gong–Lowe search (as in Knossos and Porcupine) for a sequential order of a history
/// that respects real time and that the specification accepts.
///
/// The search keeps a list of call and return events; it tries to linearize each pending call in
/// turn, backtracking when it meets a return whose call it could not place. Visited
/// (linearized set, state) pairs are memoised; the set is hashed incrementally with 128-bit
/// Zobrist keys, so memory stays proportional to the states visited, not to the history length.
public enum LinearizabilityChecker {
    /// Searches for an order of the operations that respects real time and that `spec` accepts.
    /// - Parameters:
    ///   - spec: the sequential specification; operation `i` is its step `i`.
    ///   - intervals: per operation, its invoke and complete times (complete ≥ invoke).
    ///   - budget: the most search steps before answering ``LinearizabilityVerdict/unknown``.
    public static func check<S: SequentialSpecification>(
        _ spec: S, intervals: [(invoke: Int64, complete: Int64)], budget: Int = 2_000_000
    ) -> LinearizabilityVerdict {
        let n = intervals.count
        if n == 0 { return .linearizable }
        // Events: call = 2i, return = 2i+1. Calls sort before returns at equal times (overlap).
        var events = [Int](0..<(2 * n))
        events.sort { a, b in
            let ta = a & 1 == 0 ? intervals[a >> 1].invoke : intervals[a >> 1].complete
            let tb = b & 1 == 0 ? intervals[b >> 1].invoke : intervals[b >> 1].complete
            if ta != tb { return ta < tb }
            if a & 1 != b & 1 { return a & 1 == 0 }
            return a < b
        }
        let head = 2 * n
        var next = [Int](repeating: -1, count: 2 * n + 1)
        var prev = [Int](repeating: -1, count: 2 * n + 1)
        var last = head
        for e in events {
            next[last] = e
            prev[e] = last
            last = e
        }
        var keys: [(UInt64, UInt64)] = []
        keys.reserveCapacity(n)
        var rng = SplitMix64(seed: 0x11AE_A812_AB1E)
        for _ in 0..<n { keys.append((rng.next(), rng.next())) }

        var cache = Set<SearchKey<S.State>>()
        var stack: [(call: Int, state: S.State)] = []
        var state = spec.initial
        var hash: (UInt64, UInt64) = (0, 0)
        var e = next[head]
        var steps = 0

        func lift(_ call: Int) {
            for x in [call, call + 1] {
                next[prev[x]] = next[x]
                if next[x] >= 0 { prev[next[x]] = prev[x] }
            }
        }
        func unlift(_ call: Int) {
            for x in [call + 1, call] {
                if next[x] >= 0 { prev[next[x]] = x }
                next[prev[x]] = x
            }
        }

        while true {
            if next[head] < 0 { return .linearizable }
            steps += 1
            if steps > budget { return .unknown }
            if e < 0 { return .notLinearizable }
            if e & 1 == 0 {
                let op = e >> 1
                if let after = spec.step(state, op) {
                    let h = (hash.0 ^ keys[op].0, hash.1 ^ keys[op].1)
                    if cache.insert(SearchKey(a: h.0, b: h.1, state: after)).inserted {
                        stack.append((e, state))
                        state = after
                        hash = h
                        lift(e)
                        e = next[head]
                        continue
                    }
                }
                e = next[e]
            } else {
                guard let top = stack.popLast() else { return .notLinearizable }
                state = top.state
                hash = (hash.0 ^ keys[top.call >> 1].0, hash.1 ^ keys[top.call >> 1].1)
                unlift(top.call)
                e = next[top.call]
            }
        }
    }
}

struct SearchKey<State: Hashable>: Hashable {
    var a: UInt64
    var b: UInt64
    var state: State
}

/// One operation as the booking specifications see it.
public struct BookingOperation: Sendable, Hashable {
    public enum Kind: UInt8, Sendable {
        /// A reservation that made `booking`.
        case reserved
        /// A repeated request id that returned an existing booking; changes nothing.
        case repeated
        /// Refused because the slot was taken.
        case refusedTaken
        /// Refused at the user's limit (so the slot was free).
        case refusedLimit
        /// Refused for a reason that depends on neither slot nor user state.
        case refusedOther
        /// A cancel or displacement that released `booking`.
        case released
        /// A cancel refused because `booking` was no longer active.
        case refusedInactive
        /// A cancel refused for another reason (not the owner, past the cutoff).
        case neutral
        /// A reschedule that moved `booking` into this slot (by slot) or to `start` (by user),
        /// limited like a reservation by the user's other upcoming bookings.
        case moved
        /// A hold (`hold`) confirmed into `booking`: the booking takes the hold's slot and, in the
        /// user's list, its place (limited by the user's other upcoming bookings and holds).
        case confirmed
        /// A hold (`booking`) released, or its expiry: the slot is free if the hold still had
        /// it (a hold already confirmed or gone is left as it is).
        case lapsed
        /// A confirm refused because the hold (`booking`) no longer had its slot.
        case refusedLapsed
        /// A check-in of `booking` accepted, or of unknown outcome (``SessionSpecification``).
        case checkedIn, maybeCheckedIn
        /// A check-in refused as not open yet, or as closed.
        case refusedNotOpen, refusedClosed
        /// A check-out of `booking` accepted, or refused as not checked in.
        case checkedOut, refusedNotCheckedIn
        /// A cancel, or a move, of `booking` refused as past its cutoff.
        case refusedCancelCutoff, refusedMoveCutoff
    }
    public var kind: Kind
    public var booking: UInt64
    public var user: UInt64
    /// The `now` the operation ran at, and the start of the booking's slot.
    public var now: Int64
    public var start: Int64
    public var limit: Int32
    public var invoke: Int64
    public var complete: Int64
    /// The hold a ``Kind/confirmed`` operation turned into `booking`.
    public var hold: UInt64 = 0
    /// The last moment `now` may have been, when the operation's clock is known only within
    /// bounds (`now` the first); below `now`: `now` itself.
    public var latest: Int64 = .min

    public init(
        kind: Kind, booking: UInt64 = 0, user: UInt64 = 0, now: Int64 = 0, start: Int64 = 0, limit: Int32 = 0,
        invoke: Int64, complete: Int64
    ) {
        self.kind = kind
        self.booking = booking
        self.user = user
        self.now = now
        self.start = start
        self.limit = limit
        self.invoke = invoke
        self.complete = complete
    }
}

/// One slot: free (0), or held by one booking or hold.
public struct SlotSpecification: SequentialSpecification {
    public let ops: [BookingOperation]
    /// The slot's holder before the first operation (0: free).
    public let initial: UInt64
    public init(_ ops: [BookingOperation], initial: UInt64 = 0) {
        self.ops = ops
        self.initial = initial
    }
    public func step(_ state: UInt64, _ i: Int) -> UInt64? {
        let op = ops[i]
        switch op.kind {
        case .reserved, .moved: return state == 0 ? op.booking : nil
        case .refusedTaken: return state != 0 ? state : nil
        case .refusedLimit: return state == 0 ? state : nil
        case .released: return state == op.booking ? 0 : nil
        case .refusedInactive, .refusedLapsed: return state != op.booking ? state : nil
        case .confirmed: return state == op.hold ? op.booking : nil
        case .lapsed: return state == op.booking ? 0 : state
        case .repeated, .refusedOther, .neutral, .checkedIn, .maybeCheckedIn, .refusedNotOpen, .refusedClosed,
            .checkedOut, .refusedNotCheckedIn, .refusedCancelCutoff, .refusedMoveCutoff:
            return state
        }
    }
}

/// One user: the active bookings and live holds they have (id and start; a hold's start is
/// `Int64.max`, so it counts until it lapses), limited at reservation time; with the policy's
/// `Policy.noShowLimit`, by the limit their no-shows lower (the model's `ModelRules`: a booking
/// not checked in is a no-show from its start plus grace, counted while it started within the
/// rule's days).
public struct UserSpecification: SequentialSpecification {
    public struct Held: Hashable, Sendable {
        var ids: [UInt64] = []
        var starts: [Int64] = []
        /// Whether each is checked in (or maybe is): not a no-show.
        var checkedIn: [Bool] = []

        /// Bookings held before the first operation: their ids and starts, by id.
        public init(_ bookings: [(id: UInt64, start: Int64)] = []) {
            for booking in bookings.sorted(by: { $0.id < $1.id }) {
                ids.append(booking.id)
                starts.append(booking.start)
                checkedIn.append(false)
            }
        }

        /// How many count toward the limit at `now`.
        func upcoming(at now: Int64) -> Int {
            starts.reduce(0) { $0 + (ModelRules.isUpcoming(start: $1, at: now) ? 1 : 0) }
        }

        /// These with `id` (starting at `start`) added, in id order.
        func adding(_ id: UInt64, start: Int64) -> Held {
            var held = self
            let at = ids.firstIndex { $0 > id } ?? ids.count
            held.ids.insert(id, at: at)
            held.starts.insert(start, at: at)
            held.checkedIn.insert(false, at: at)
            return held
        }

        /// These without the one at `index`.
        func removing(at index: Int) -> Held {
            var held = self
            held.ids.remove(at: index)
            held.starts.remove(at: index)
            held.checkedIn.remove(at: index)
            return held
        }

        /// The no-shows that count against the user at `now` under `rules`.
        func noShows(at now: Int64, _ rules: ModelRules) -> Int {
            starts.indices.reduce(0) { count, i in
                let start = starts[i]
                let counts =
                    !checkedIn[i] && rules.isNoShow(start: start, at: now)
                    && rules.countsAsRecent(start: start, at: now)
                return count + (counts ? 1 : 0)
            }
        }

    }
    public let ops: [BookingOperation]
    /// What the user held before the first operation.
    public let initial: Held
    /// The rules whose no-show limit lowers a user's (`nil`: none does).
    let noShowRules: ModelRules?
    /// The most live holds a user may have (`Policy.maxHoldsPerUser`; `nil`: not judged).
    let holdLimit: Int?

    public init(_ ops: [BookingOperation], initial: Held = Held()) {
        self.init(ops, initial: initial, noShowRules: nil)
    }

    /// With `noShowRules`, whose `Policy.noShowLimit` (if any) lowers the limit of each
    /// reservation, move and confirm: the partition then holds the user's check-ins too. With
    /// `holdLimit`, a hold (a reservation whose `start` is `Int64.max`) is taken only while the
    /// user has fewer live holds.
    package init(
        _ ops: [BookingOperation], initial: Held = Held(), noShowRules: ModelRules?, holdLimit: Int? = nil
    ) {
        self.ops = ops
        self.initial = initial
        self.noShowRules = noShowRules?.policy.noShowLimit == nil ? nil : noShowRules
        self.holdLimit = holdLimit
    }

    /// The limit of `op`'s user in `state`: its own, or the one their no-shows lower it to.
    func limit(_ op: BookingOperation, in state: Held) -> Int {
        guard let rules = noShowRules else { return Int(op.limit) }
        return rules.limit(own: Int(op.limit), noShows: state.noShows(at: op.now, rules))
    }

    public func step(_ state: Held, _ i: Int) -> Held? {
        let op = ops[i]
        switch op.kind {
        case .reserved:
            guard ModelRules.admits(upcoming: state.upcoming(at: op.now), limit: limit(op, in: state)) else {
                return nil
            }
            if op.start == .max, let holdLimit, state.starts.count(where: { $0 == .max }) >= holdLimit {
                return nil
            }
            return state.adding(op.booking, start: op.start)
        case .moved, .confirmed:
            // The booking (a move) or the hold (a confirm) gives its place to the booking at `start`.
            guard let at = state.ids.firstIndex(of: op.kind == .moved ? op.booking : op.hold) else { return nil }
            let others = state.removing(at: at)
            guard ModelRules.admits(upcoming: others.upcoming(at: op.now), limit: limit(op, in: state)) else {
                return nil
            }
            return others.adding(op.booking, start: op.start)
        case .checkedIn, .maybeCheckedIn:
            // Not a no-show once (maybe) checked in: the permissive reading for what is accepted.
            guard let at = state.ids.firstIndex(of: op.booking) else { return state }
            var next = state
            next.checkedIn[at] = true
            return next
        case .refusedLimit:
            return ModelRules.admits(upcoming: state.upcoming(at: op.now), limit: Int(op.limit)) ? nil : state
        case .released:
            return state.ids.firstIndex(of: op.booking).map { state.removing(at: $0) }
        case .refusedInactive, .refusedLapsed:
            return state.ids.contains(op.booking) ? nil : state
        case .lapsed:
            return state.ids.firstIndex(of: op.booking).map { state.removing(at: $0) } ?? state
        case .repeated, .refusedTaken, .refusedOther, .neutral, .refusedNotOpen, .refusedClosed, .checkedOut,
            .refusedNotCheckedIn, .refusedCancelCutoff, .refusedMoveCutoff:
            return state
        }
    }
}
