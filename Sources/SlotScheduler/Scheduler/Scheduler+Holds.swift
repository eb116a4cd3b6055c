/// Hold, then confirm, under the scheduler's locks: each call takes the slot's station shard,
/// then the user's stripe, like ``Scheduler/reserve(_:at:)``, so a hold, a confirm, a release and
/// a reservation of one slot are each one atomic step, and a slot is never both held and booked.
extension Scheduler {
    /// Holds a slot; see ``Ledger/hold(_:for:reminder:at:)``.
    @discardableResult
    public func hold(_ slot: Slot, for user: UserID, reminder: Duration? = nil, at now: Instant) throws(Rejection)
        -> Hold
    {
        try apply(.hold(slot, user: user, reminder: reminder), at: now).hold()
    }

    /// Confirms a hold; see ``Ledger/confirm(_:by:at:)``.
    @discardableResult
    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try confirmation(slot, by: user, at: now).booking
    }

    /// ``confirm(_:by:at:)``, saying whether the booking was made by an earlier confirm of the
    /// same hold (``Reservation/isReplay``: nothing changed, so a journal records nothing).
    public func confirmation(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Reservation {
        try apply(.confirm(slot, user: user), at: now).reservation()
    }

    /// Releases a hold; see ``Ledger/releaseHold(_:by:at:)``.
    @discardableResult
    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Hold {
        try apply(.releaseHold(slot, user: user), at: now).hold()
    }

    /// The holds that live at `now`, by slot; each shard is read under its lock in turn.
    public func holds(at now: Instant) -> [Hold] {
        let catalog = rules.catalog
        return shards.indices.flatMap { shard in
            shards.withLock(shard) { $0.currentHolds(catalog: catalog).filter { $0.isLive(at: now) } }
        }.sorted { $0.slot < $1.slot }
    }
}
