import SlotScheduler

/// One booking's session: when its hour starts, whether it is checked in, and whether it has
/// ended. The one statement, outside the core, of what a check-in and a check-out may answer:
/// both checkers (threads mode's `ThreadsAnalysis` and `--check rules`' ``RulesCheck``) partition
/// their history per booking and hold each partition to it.
///
/// The rules are the reference model's: a check-in is accepted in the booking's window
/// (`ModelRules.checkInWindow(start:)`) and a repeat whenever it comes; it is refused as not
/// open before the window and as closed after it, only while not checked in; a check-out needs a
/// check-in and ends the booking; a move clears a check-in; a cancel is accepted only before the
/// cancellation cutoff and a move only before the reschedule cutoff (`ModelRules.cancelDeadline`,
/// `ModelRules.rescheduleDeadline`), and refused as past it only after. Each operation is judged over the
/// moments it may have run at, `now` to ``BookingOperation/latest`` (one moment in threads mode;
/// the request's flight on the target's clock for an API), so a verdict is never a guess.
public struct SessionSpecification: SequentialSpecification {
    public struct State: Hashable, Sendable {
        /// The start of the booking's hour (`nil`: not known, its window is not judged).
        var start: Int64?
        var checkedIn = CheckedIn.no
        /// Checked out or cancelled: nothing is accepted any more.
        var ended = false

        public init(start: Int64?) { self.start = start }
    }

    /// Whether a booking is checked in; `maybe` after a check-in of unknown outcome.
    enum CheckedIn: UInt8, Hashable, Sendable { case no, maybe, yes }

    /// Why the model cannot give an operation's answer in a state.
    public enum Violation: Equatable, Sendable {
        /// A first check-in accepted while the window was shut at every moment of the call:
        /// before it opened (`opensAt`) or after it closed (`closesAt`).
        case checkedInBeforeWindow(opensAt: Int64)
        case checkedInAfterWindow(closesAt: Int64)
        /// A check-in refused as not open, or as closed, while the window says otherwise (or the
        /// booking was checked in, which answers a repeat as made).
        case refusedAsNotOpen(window: Range<Int64>?)
        case refusedAsClosed(window: Range<Int64>?)
        /// A check-out accepted of a booking not checked in.
        case checkedOutWithoutCheckIn
        /// A check-out refused as not checked in after a check-in.
        case refusedAsNotCheckedIn
        /// A check-in (or a check-out) accepted after the booking ended.
        case acceptedAfterEnd(checkIn: Bool)
        /// A cancel (`move` false) or a move accepted when its cutoff (`deadline`) had passed at
        /// every moment of the call.
        case acceptedAfterCutoff(deadline: Int64, move: Bool)
        /// A cancel or a move refused as past its cutoff before it at every moment of the call.
        case refusedBeforeCutoff(deadline: Int64, move: Bool)

        /// Whether it is about a check-in (I18) rather than a check-out (I21).
        public var isCheckIn: Bool {
            switch self {
            case .checkedInBeforeWindow, .checkedInAfterWindow, .refusedAsNotOpen, .refusedAsClosed: true
            case .acceptedAfterEnd(let checkIn): checkIn
            case .checkedOutWithoutCheckIn, .refusedAsNotCheckedIn, .acceptedAfterCutoff, .refusedBeforeCutoff: false
            }
        }
    }

    public let ops: [BookingOperation]
    public let initial: State
    let rules: ModelRules

    package init(_ ops: [BookingOperation], initial: State, rules: ModelRules) {
        self.ops = ops
        self.initial = initial
        self.rules = rules
    }

    public func step(_ state: State, _ i: Int) -> State? {
        judge(state, ops[i]) == nil ? after(state, ops[i]) : nil
    }

    /// Why `op`'s answer is impossible in `state`, or `nil`.
    func judge(_ state: State, _ op: BookingOperation) -> Violation? {
        let window = state.start.map { rules.checkInWindow(start: $0) }
        let (first, last) = (op.now, max(op.now, op.latest))
        switch op.kind {
        case .checkedIn:
            if state.ended { return .acceptedAfterEnd(checkIn: true) }
            guard state.checkedIn == .no, let window else { return nil }
            if last < window.lowerBound { return .checkedInBeforeWindow(opensAt: window.lowerBound) }
            if first >= window.upperBound { return .checkedInAfterWindow(closesAt: window.upperBound) }
            return nil
        case .refusedNotOpen:
            let open = window.map { first >= $0.lowerBound } ?? false
            return state.checkedIn == .yes || open ? .refusedAsNotOpen(window: window) : nil
        case .refusedClosed:
            let open = window.map { last < $0.upperBound } ?? false
            return state.checkedIn == .yes || open ? .refusedAsClosed(window: window) : nil
        case .checkedOut:
            if state.ended { return .acceptedAfterEnd(checkIn: false) }
            return state.checkedIn == .no ? .checkedOutWithoutCheckIn : nil
        case .refusedNotCheckedIn:
            return state.checkedIn == .yes ? .refusedAsNotCheckedIn : nil
        case .released, .moved, .refusedCancelCutoff, .refusedMoveCutoff:
            return judgeCutoff(state, op)
        default: return nil
        }
    }

    /// Why a cancel (`released`) or a move, accepted or refused as past its cutoff, could not be
    /// answered so at any moment of the call; `nil` for a booking ended or of unknown start, and
    /// for a call of unknown outcome (`complete` `.max`: it may not have happened).
    func judgeCutoff(_ state: State, _ op: BookingOperation) -> Violation? {
        guard !state.ended, let start = state.start, op.complete != .max else { return nil }
        let move = op.kind == .moved || op.kind == .refusedMoveCutoff
        let deadline = move ? rules.rescheduleDeadline(start: start) : rules.cancelDeadline(start: start)
        let (first, last) = (op.now, max(op.now, op.latest))
        switch op.kind {
        case .released, .moved:
            return first >= deadline ? .acceptedAfterCutoff(deadline: deadline, move: move) : nil
        default:
            return last < deadline ? .refusedBeforeCutoff(deadline: deadline, move: move) : nil
        }
    }

    /// The state after `op`, whose answer is possible.
    func after(_ state: State, _ op: BookingOperation) -> State {
        var next = state
        switch op.kind {
        case .reserved, .moved, .confirmed:
            // `Int64.min`: a local time that does not exist (I4's to report), so no window.
            next = State(start: op.start == .min ? nil : op.start)
        case .checkedIn: next.checkedIn = .yes
        case .maybeCheckedIn: next.checkedIn = state.checkedIn == .yes ? .yes : .maybe
        case .movedInPlace: next.checkedIn = state.checkedIn == .no ? .no : .maybe
        case .refusedNotCheckedIn: next.checkedIn = .no
        case .checkedOut, .released:
            next.ended = true
            next.checkedIn = .no
        default: break
        }
        return next
    }

    /// The first operation, in the order given, whose answer the model cannot give after those
    /// before it, and why: for a booking's operations that ran one at a time, the one to blame.
    public func firstViolation() -> (index: Int, violation: Violation)? {
        replay().violation
    }

    /// The operations replayed in the order given, up to the first whose answer the model cannot
    /// give: that one, if any, and how many check-ins before it checked the booking in (not
    /// repeats).
    public func replay() -> (violation: (index: Int, violation: Violation)?, checkIns: Int) {
        var state = initial
        var checkIns = 0
        for (i, op) in ops.enumerated() {
            if let violation = judge(state, op) { return ((i, violation), checkIns) }
            if op.kind == .checkedIn, state.checkedIn != .yes { checkIns += 1 }
            state = after(state, op)
        }
        return (nil, checkIns)
    }
}

extension SessionSpecification.Violation {
    /// In words, for `booking`.
    public func explanation(booking: String) -> String {
        func at(_ seconds: Int64) -> Instant { Instant(secondsSinceEpoch: seconds) }
        func window(_ range: Range<Int64>?) -> String {
            range.map { "its window is \(at($0.lowerBound)) until \(at($0.upperBound))" } ?? "it was checked in"
        }
        switch self {
        case .checkedInBeforeWindow(let opens):
            return "booking \(booking) was checked in before its window opened (\(at(opens)))"
        case .checkedInAfterWindow(let closes):
            return "booking \(booking) was checked in after its window closed (\(at(closes)))"
        case .refusedAsNotOpen(let range):
            return "the check-in of booking \(booking) was refused as checkInNotOpen, but \(window(range))"
        case .refusedAsClosed(let range):
            return "the check-in of booking \(booking) was refused as checkInClosed, but \(window(range))"
        case .checkedOutWithoutCheckIn:
            return "booking \(booking) was checked out without a check-in before it"
        case .refusedAsNotCheckedIn:
            return "booking \(booking) was refused as not checked in after its check-in"
        case .acceptedAfterEnd(let checkIn):
            return "booking \(booking) was checked \(checkIn ? "in" : "out") after it had ended"
        case .acceptedAfterCutoff(let deadline, let move):
            return "booking \(booking) was \(move ? "moved" : "cancelled") after its cutoff (\(at(deadline)))"
        case .refusedBeforeCutoff(let deadline, let move):
            return
                "the \(move ? "move" : "cancel") of booking \(booking) was refused as past its cutoff, which is \(at(deadline))"
        }
    }
}
