/// A request to move a booking to another slot of its station (another hour, date or socket).
///
/// The move is atomic: the new slot is taken and the old one freed together, or nothing
/// changes. The booking keeps its id, its reminder offset and its place in the user's limit.
public struct RescheduleRequest: Hashable, Sendable {
    public var booking: BookingID
    /// Who asks: only the booking's owner may move it.
    public var user: UserID
    /// The slot to move to, at the booking's station.
    public var slot: Slot
    /// Idempotency key, in a namespace of its own (a reservation may use the same id); see
    /// ``RequestID``.
    public var requestID: RequestID?

    public init(booking: BookingID, user: UserID, to slot: Slot, requestID: RequestID? = nil) {
        self.booking = booking
        self.user = user
        self.slot = slot
        self.requestID = requestID
    }
}

/// A booking moved from one slot to another: the payload of ``Event/rescheduled(_:at:)``.
public struct BookingMove: Hashable, Sendable {
    public var booking: BookingID
    public var user: UserID
    public var from: Slot
    public var to: Slot
    /// The instant the new slot starts.
    public var start: Instant
    /// The reschedule's request id, remembered so a repeat returns the same booking.
    public var requestID: RequestID?

    public init(booking: BookingID, user: UserID, from: Slot, to: Slot, start: Instant, requestID: RequestID? = nil) {
        self.booking = booking
        self.user = user
        self.from = from
        self.to = to
        self.start = start
        self.requestID = requestID
    }
}
