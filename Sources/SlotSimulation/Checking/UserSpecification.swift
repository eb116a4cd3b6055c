import SlotScheduler

/// One user: the active bookings and live holds they have (id and start; a hold's start is
/// `Int64.max`, so it counts until it is confirmed, released or lapses, and while `now` is before
/// its expiry), limited at reservation time. Whether a confirm came in time, and whether a
/// refusal as expired was right, is the slot's to judge (``SlotSpecification``): a hold loses its
/// slot once another call takes it at a `now` past the expiry, which the user's operations do not
/// show, while the user's count keeps it at earlier `now`s, as the store's does. With the policy's
/// `Policy.noShowLimit`, by the limit their no-shows lower (the model's `ModelRules`: a booking
/// not checked in is a no-show from its start plus grace, counted while it started within the
/// rule's days).
public struct UserSpecification: SequentialSpecification {
    public struct Held: Hashable, Sendable {
        var ids: [UInt64] = []
        var starts: [Int64] = []
        /// Whether each is checked in (or maybe is): not a no-show.
        var checkedIn: [Bool] = []
        /// When each, a hold, expires (`.max`: a booking, or a hold whose expiry is an operation).
        var expiries: [Int64] = []

        /// Bookings held before the first operation: their ids and starts, by id.
        public init(_ bookings: [(id: UInt64, start: Int64)] = []) {
            for booking in bookings.sorted(by: { $0.id < $1.id }) {
                ids.append(booking.id)
                starts.append(booking.start)
                checkedIn.append(false)
                expiries.append(.max)
            }
        }

        /// How many count toward the limit at `now`.
        func upcoming(at now: Int64) -> Int {
            starts.indices.count { ModelRules.isUpcoming(start: starts[$0], at: now) && now < expiries[$0] }
        }

        /// How many holds live at `now`.
        func liveHolds(at now: Int64) -> Int {
            starts.indices.count { starts[$0] == .max && now < expiries[$0] }
        }

        /// These with `id` (starting at `start`, expiring at `expiry`) added, in id order; an
        /// earlier hold of the same id (its user's earlier hold of the same slot) gives way.
        func adding(_ id: UInt64, start: Int64, expiry: Int64 = .max) -> Held {
            var held = ids.firstIndex(of: id).map { removing(at: $0) } ?? self
            let at = held.ids.firstIndex { $0 > id } ?? held.ids.count
            held.ids.insert(id, at: at)
            held.starts.insert(start, at: at)
            held.checkedIn.insert(false, at: at)
            held.expiries.insert(expiry, at: at)
            return held
        }

        /// These without the one at `index`.
        func removing(at index: Int) -> Held {
            var held = self
            held.ids.remove(at: index)
            held.starts.remove(at: index)
            held.checkedIn.remove(at: index)
            held.expiries.remove(at: index)
            return held
        }

        /// The no-shows that count against the user at `now` under `rules`.
        func noShows(at now: Int64, _ rules: ModelRules) -> Int {
            starts.indices.reduce(0) { count, i in
                let start = starts[i]
                // A hold (`Int64.max`) is never a no-show.
                let counts =
                    start != .max && !checkedIn[i] && rules.isNoShow(start: start, at: now)
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
        case .reserved, .maybeHeld:
            let admitted =
                ModelRules.admits(upcoming: state.upcoming(at: op.now), limit: limit(op, in: state))
                && (op.start != .max || holdLimit.map { state.liveHolds(at: op.now) < $0 } ?? true)
            guard admitted else { return op.kind == .maybeHeld ? state : nil }
            return state.adding(op.booking, start: op.start, expiry: op.expiry)
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
        case .refusedInactive:
            return state.ids.contains(op.booking) ? nil : state
        case .lapsed:
            return state.ids.firstIndex(of: op.booking).map { state.removing(at: $0) } ?? state
        case .repeated, .refusedTaken, .refusedHeld, .refusedOther, .neutral, .refusedNotOpen, .refusedClosed,
            .checkedOut, .refusedNotCheckedIn, .refusedCancelCutoff, .refusedMoveCutoff, .refusedLapsed, .movedInPlace:
            return state
        }
    }
}
