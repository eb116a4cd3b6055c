import SlotScheduler

/// One operation of a threads-mode history: what was asked, what came back, and when.
///
/// Kept compact (64 bytes) because a run holds one per operation while it is checked: the fields
/// most operations lack (a repeat's first booking, a request id, a query's answer, an availability
/// change and what it displaced) live in one optional box, allocated only when one is set.
public struct TimedOperation: Sendable {
    public enum Kind: UInt8, Sendable {
        case reserve, cancel, query, change, hold, confirm, releaseHold, reschedule, anySocket, checkIn, checkOut

        /// Whether an accepted operation of this kind ends its booking and frees its slot, as a
        /// cancel does: a cancel or a check-out.
        var endsBooking: Bool { self == .cancel || self == .checkOut }
    }
    /// Worker number; -1 for scripted steps (run before the workers).
    public var process: Int32
    public var cell: Int32
    public var user: UInt64
    /// Booking made (reserve, confirm, any-socket), cancelled (cancel), moved (reschedule) or
    /// checked in or out (checkIn, checkOut). A reschedule's `cell` is where it moves the booking to; an
    /// any-socket request's, the socket it was given (else the one it was drawn from).
    public var booking: UInt64
    public var now: Int64
    /// Monotonic nanoseconds since the run began.
    public var invoke: Int64
    public var complete: Int64
    /// ``result`` as a code, the form the checks store compactly: `-1` accepted, `-2`
    /// indeterminate, else the reason's `Reasons.code(_:)`.
    var outcome: Int16
    public var kind: Kind
    /// An operation that ended indeterminate (`-2`) and that the final state showed to have
    /// happened; its outcome was rewritten to accepted (see `IndeterminateOutcomes`).
    public var resolvedIndeterminate = false
    private var box: RareBox?

    /// The fields few operations have.
    struct Rare: Sendable {
        var repeatOf: UInt64 = 0
        var requestID: String?
        var displaced: [UInt64] = []
        var detail: String?
        var change: AvailabilityChange?
        /// An any-socket request's: the cell it named (station, date, hour and the socket whose
        /// connector it asked for) and the least power it asked for.
        var requestedCell: Int32 = -1
        var minimumPowerKW: Double = 0
        /// A check-in's: the code it presented (`nil`: none).
        var accessCode: String?
        /// A check-out's: where it left its resource (`nil`: where it was).
        var leftAt: Coordinate?

        var isEmpty: Bool {
            repeatOf == 0 && requestID == nil && displaced.isEmpty && detail == nil && change == nil
                && requestedCell < 0 && minimumPowerKW == 0 && accessCode == nil && leftAt == nil
        }
    }

    /// A heap box with value semantics (an indirect case is copied on write like any value).
    indirect enum RareBox: Sendable { case value(Rare) }

    var rare: Rare {
        get { if case .value(let rare)? = box { rare } else { Rare() } }
        set { box = newValue.isEmpty ? nil : .value(newValue) }
    }

    public init(
        process: Int32, kind: Kind, user: UInt64, cell: Int32 = -1, booking: UInt64 = 0, result: Outcome = .accepted,
        repeatOf: UInt64 = 0, requestID: String? = nil, now: Int64, invoke: Int64, complete: Int64,
        displaced: [UInt64] = [], detail: String? = nil
    ) {
        self.process = process
        self.kind = kind
        self.user = user
        self.cell = cell
        self.booking = booking
        self.outcome = result.code
        self.now = now
        self.invoke = invoke
        self.complete = complete
        let rare = Rare(repeatOf: repeatOf, requestID: requestID, displaced: displaced, detail: detail)
        box = rare.isEmpty ? nil : .value(rare)
    }

    /// For a repeated request id: the booking the first request made.
    public var repeatOf: UInt64 {
        get { rare.repeatOf }
        set { rare.repeatOf = newValue }
    }
    public var requestID: String? {
        get { rare.requestID }
        set { rare.requestID = newValue }
    }
    public var displaced: [UInt64] {
        get { rare.displaced }
        set { rare.displaced = newValue }
    }
    public var detail: String? {
        get { rare.detail }
        set { rare.detail = newValue }
    }
    /// The availability change a `.change` operation asked for.
    public var change: AvailabilityChange? {
        get { rare.change }
        set { rare.change = newValue }
    }

    /// See ``Rare/requestedCell``.
    var requestedCell: Int32 {
        get { rare.requestedCell }
        set { rare.requestedCell = newValue }
    }
    var minimumPowerKW: Double {
        get { rare.minimumPowerKW }
        set { rare.minimumPowerKW = newValue }
    }
    /// See ``Rare/accessCode``.
    var accessCode: String? {
        get { rare.accessCode }
        set { rare.accessCode = newValue }
    }
    /// See ``Rare/leftAt``.
    var leftAt: Coordinate? {
        get { rare.leftAt }
        set { rare.leftAt = newValue }
    }

    public var reason: Rejection.Reason? { outcome >= 0 ? Reasons.all[Int(outcome)] : nil }

    /// What a call came back with.
    public enum Outcome: Hashable, Sendable {
        case accepted
        case refused(Rejection.Reason)
        /// An error that is not a refusal (a lost reply, a timeout): it may have happened or not.
        case indeterminate

        /// `-1` accepted, `-2` indeterminate, else the reason's ``Reasons/code(_:)``.
        var code: Int16 {
            switch self {
            case .accepted: -1
            case .indeterminate: -2
            case .refused(let reason): Reasons.code(reason)
            }
        }

        init(code: Int16) {
            self = code == -1 ? .accepted : code < 0 ? .indeterminate : .refused(Reasons.all[Int(code)])
        }
    }

    /// What the call came back with.
    public var result: Outcome {
        get { Outcome(code: outcome) }
        set { outcome = newValue.code }
    }
}

extension TimedOperation.Kind {
    /// The operation's name in a history file.
    var historyName: String {
        switch self {
        case .reserve: "reserve"
        case .cancel: "cancel"
        case .query: "query"
        case .change: "changeAvailability"
        case .hold: "hold"
        case .confirm: "confirm"
        case .releaseHold: "releaseHold"
        case .reschedule: "reschedule"
        case .anySocket: "anySocket"
        case .checkIn: "checkIn"
        case .checkOut: "checkOut"
        }
    }

    init?(historyName: String) {
        var raw: UInt8 = 0
        while let kind = Self(rawValue: raw) {
            if kind.historyName == historyName {
                self = kind
                return
            }
            raw += 1
        }
        return nil
    }
}

extension [TimedOperation] {
    /// Sorts by invoke time (then process, completion and original position), moving each
    /// 64-byte operation once: a 4-byte permutation is sorted and then applied in place, cycle
    /// by cycle, instead of a sort that would need a buffer of half the history beside it.
    /// - Complexity: O(n log n); extra memory 4 bytes per operation.
    mutating func sortByInvoke() {
        var order = [Int32](0..<Int32(clamping: count))
        guard order.count == count else {
            return sort { ($0.invoke, $0.process, $0.complete) < ($1.invoke, $1.process, $1.complete) }
        }
        order.sort { a, b in
            let x = self[Int(a)]
            let y = self[Int(b)]
            return (x.invoke, x.process, x.complete, a) < (y.invoke, y.process, y.complete, b)
        }
        // Position k takes the operation at order[k]; a visited position is marked -1.
        for start in indices where order[start] >= 0 {
            let saved = self[start]
            var k = start
            while true {
                let from = Int(order[k])
                order[k] = -1
                if from == start {
                    self[k] = saved
                    break
                }
                self[k] = self[from]
                k = from
            }
        }
    }
}
