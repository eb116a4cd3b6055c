extension Scheduler {
    /// Checks a booking in; see ``Ledger/checkIn(_:by:accessCode:at:)``. Runs under the booking's
    /// shard lock, then the user's stripe, like ``cancel(_:by:at:)``.
    @discardableResult
    public func checkIn(_ id: BookingID, by user: UserID, accessCode: String?, at now: Instant)
        throws(Rejection) -> Booking
    {
        try apply(.checkIn(id, user: user, accessCode: accessCode), at: now).booking()
    }

    /// Checks a booking in without a code: ``checkIn(_:by:accessCode:at:)``. Spelled out (not a
    /// default argument) so a call in an async context means this one, not the
    /// ``BookingService`` extension's.
    @discardableResult
    public func checkIn(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try checkIn(id, by: user, accessCode: nil, at: now)
    }

    /// Checks a booking out; see ``Ledger/checkOut(_:by:at:)``. Locks as ``checkIn(_:by:accessCode:at:)``.
    @discardableResult
    public func checkOut(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.checkOut(id, user: user), at: now).booking()
    }
}
