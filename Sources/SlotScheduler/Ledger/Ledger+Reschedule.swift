extension Ledger {
    /// Moves a booking to another slot of its station, or throws why not; a refusal changes
    /// nothing. The new slot is taken and the old one freed in one step; the booking keeps its id,
    /// its reminder offset (checked against the new start) and its creation time, and counts once
    /// against its user's limit. Allowed to the owner, while the booking is active and `now` is
    /// before start − ``Policy/rescheduleCutoffSeconds`` (default: the cancellation cutoff).
    ///
    /// Repeating a ``RescheduleRequest/requestID`` returns the booking as it is now
    /// (``Reservation/isReplay``); the id used for another booking or slot is refused
    /// (``Rejection/Reason/conflictingRequestID``). Journalled as one ``Event/rescheduled(_:at:)``.
    /// - Complexity: O(*k*) in the user's active bookings.
    @discardableResult
    public mutating func reschedule(_ request: RescheduleRequest, at now: Instant) throws(Rejection) -> Reservation {
        try apply(.reschedule(request), at: now).reservation()
    }
}
