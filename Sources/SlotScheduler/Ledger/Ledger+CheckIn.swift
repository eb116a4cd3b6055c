/// Check-in and no-shows: see `Decisions+CheckIn.swift` and <doc:BookingRules>.
extension Ledger {
    /// Checks a booking in at `now`: by its owner only, while it is active, from its start −
    /// ``Policy/earlyCheckInSeconds`` until its start + ``Policy/noShowGraceSeconds``. A repeat
    /// returns the booking unchanged. A booking not checked in by then is a no-show
    /// (``Booking/isNoShow(at:grace:)``; ``UserBookings/noShow``).
    /// - Complexity: O(*k*) in the user's live bookings.
    @discardableResult
    public mutating func checkIn(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.checkIn(id, user: user), at: now).booking()
    }
}
