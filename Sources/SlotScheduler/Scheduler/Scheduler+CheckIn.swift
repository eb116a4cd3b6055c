extension Scheduler {
    /// Checks a booking in; see ``Ledger/checkIn(_:by:at:)``. Runs under the booking's shard
    /// lock, then the user's stripe, like ``cancel(_:by:at:)``.
    @discardableResult
    public func checkIn(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.checkIn(id, user: user), at: now).booking()
    }
}
