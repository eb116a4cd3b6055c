extension Scheduler {
    /// Moves a booking to another slot of its station; see ``Ledger/reschedule(_:at:)``.
    ///
    /// Atomic: a station's slots are all in one shard, so the booking's old and new slot are
    /// under one shard lock, taken (then the user's stripe lock) in the order every operation
    /// takes locks. No other operation sees the booking half moved, and there is no second shard
    /// lock to order.
    @discardableResult
    public func reschedule(_ request: RescheduleRequest, at now: Instant) throws(Rejection) -> Reservation {
        try apply(.reschedule(request), at: now).reservation()
    }
}
