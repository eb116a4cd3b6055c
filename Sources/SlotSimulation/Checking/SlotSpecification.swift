import SlotScheduler

/// One slot: free, or taken by one booking, or by one hold until its expiry (by the acting
/// operation's `now`, as the model decides it: an expired hold no longer keeps anyone out).
public struct SlotSpecification: SequentialSpecification {
    public struct State: Hashable, Sendable {
        /// The booking or hold in the slot (0: free).
        public var holder: UInt64
        /// When a hold in the slot expires (`.max`: a booking, or a hold whose expiry is an operation).
        public var expiry: Int64 = .max

        /// Whether something keeps the slot at `now`.
        func taken(at now: Int64) -> Bool { holder != 0 && now < expiry }
    }

    public let ops: [BookingOperation]
    /// The slot before the first operation.
    public let initial: State
    /// Whether confirms and refusals as held or expired are held to the holds' expiry (`false`:
    /// only to whether the hold is there, which tells a store's expiry apart as I16).
    let judgesExpiry: Bool

    /// - Parameters:
    ///   - ops: the slot's operations; operation `i` is step `i`.
    ///   - initial: the slot's holder before the first operation (0: free).
    public init(_ ops: [BookingOperation], initial: UInt64 = 0) {
        self.init(ops, initial: initial, judgesExpiry: true)
    }

    package init(_ ops: [BookingOperation], initial: UInt64 = 0, judgesExpiry: Bool) {
        self.ops = ops
        self.initial = State(holder: initial)
        self.judgesExpiry = judgesExpiry
    }

    public func step(_ state: State, _ i: Int) -> State? {
        let op = ops[i]
        let taken = state.taken(at: op.now)
        // What a hold's expiry does not decide when it is not judged: whether the hold is there.
        let there = state.holder != 0 && (taken || !judgesExpiry)
        switch op.kind {
        case .reserved, .moved: return taken ? nil : State(holder: op.booking, expiry: op.expiry)
        case .maybeHeld: return taken ? state : State(holder: op.booking, expiry: op.expiry)
        case .refusedTaken: return taken ? state : nil
        case .refusedHeld: return there && state.expiry != .max ? state : nil
        case .refusedLimit: return taken ? nil : state
        case .released: return state.holder == op.booking ? State(holder: 0) : nil
        case .refusedInactive: return state.holder != op.booking ? state : nil
        case .refusedLapsed: return state.holder != op.booking || !there ? state : nil
        case .confirmed: return state.holder == op.hold && there ? State(holder: op.booking) : nil
        case .lapsed: return state.holder == op.booking ? State(holder: 0) : state
        case .repeated, .refusedOther, .neutral, .checkedIn, .maybeCheckedIn, .refusedNotOpen, .refusedClosed,
            .checkedOut, .refusedNotCheckedIn, .refusedCancelCutoff, .refusedMoveCutoff, .movedInPlace:
            return state
        }
    }
}
