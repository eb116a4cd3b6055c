/// Check-in, no-shows and check-out: see `Decisions+CheckIn.swift`, `Decisions+CheckOut.swift`
/// and <doc:BookingRules>.
extension Ledger {
    /// Checks a booking in at `now`: by its owner only, while it is active, from its start −
    /// ``Policy/earlyCheckInSeconds`` until its start + ``Policy/noShowGraceSeconds``, presenting
    /// its socket's ``Socket/accessCode`` when the socket has one. A repeat returns the booking
    /// unchanged. A booking not checked in by then is a no-show (``Booking/isNoShow(at:grace:)``;
    /// ``UserBookings/noShow``).
    /// - Complexity: O(*k*) in the user's live bookings.
    @discardableResult
    public mutating func checkIn(_ id: BookingID, by user: UserID, accessCode: String? = nil, at now: Instant)
        throws(Rejection) -> Booking
    {
        try apply(.checkIn(id, user: user, accessCode: accessCode), at: now).booking()
    }

    /// Checks a checked-in booking out at `now`, by its owner: its session ends
    /// (``Booking/checkedOutAt``), it is ``Booking/Status/fulfilled``, its slot is freed and it no
    /// longer counts against its user's limit. Refused when it was never checked in
    /// (``Rejection/Reason/notCheckedIn``) or already ended
    /// (``Rejection/Reason/alreadyCheckedOut``, ``Rejection/Reason/alreadyCancelled``).
    /// - Complexity: O(*k*) in the user's live bookings.
    @discardableResult
    public mutating func checkOut(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.checkOut(id, user: user), at: now).booking()
    }
}
