import SlotScheduler

/// One operation as the booking specifications see it.
public struct BookingOperation: Sendable, Hashable {
    public enum Kind: UInt8, Sendable {
        /// A reservation that made `booking`.
        case reserved
        /// A repeated request id that returned an existing booking; changes nothing.
        case repeated
        /// Refused because the slot was taken (by a booking, or a hold that lives at `now`).
        case refusedTaken
        /// Refused because a hold of the slot lived at `now`.
        case refusedHeld
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
        /// A confirm refused because the hold (`booking`) no longer had its slot or had expired.
        case refusedLapsed
        /// A hold (`booking`) of unknown outcome: taken if the slot (and the user's limits) let it
        /// be, else nothing; a ``lapsed`` of it at any later moment stands for its never being made.
        case maybeHeld
        /// A check-in of `booking` accepted, or of unknown outcome (``SessionSpecification``).
        case checkedIn, maybeCheckedIn
        /// A check-in refused as not open yet, or as closed.
        case refusedNotOpen, refusedClosed
        /// A check-out of `booking` accepted, or refused as not checked in.
        case checkedOut, refusedNotCheckedIn
        /// A cancel, or a move, of `booking` refused as past its cutoff.
        case refusedCancelCutoff, refusedMoveCutoff
        /// A move of `booking` accepted that left it in its slot: a new move to its own slot
        /// clears a check-in, as every move does (``SessionSpecification``), and the repeat of an
        /// earlier move's request changes nothing; which of the two, a history does not say.
        case movedInPlace
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
    /// When a hold this operation makes expires, by `now` (`.max`: never by itself; a checker
    /// that does not know the target's clock makes the expiry a ``Kind/lapsed`` operation instead).
    public var expiry: Int64 = .max
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
