/// Hold, then confirm, under the scheduler's locks: each call takes the slot's station shard,
/// then the user's stripe, like ``Scheduler/reserve(_:at:)``, so a hold, a confirm, a release and
/// a reservation of one slot are each one atomic step, and a slot is never both held and booked.
extension Scheduler {
    /// Holds a slot; see ``Ledger/hold(_:for:reminder:at:)``.
    @discardableResult
    public func hold(_ slot: Slot, for user: UserID, reminder: Duration? = nil, at now: Instant) throws(Rejection)
        -> Hold
    {
        let ref = try rules.catalog.resolve(slot)
        let reminder = reminder.map { $0.components.seconds }
        return try locked(ref, user) { rules, slots, users in
            Decisions.hold(
                ref, user: user, reminder: reminder, now: now.secondsSinceEpoch, rules: rules, slots: &slots,
                users: &users
            ).map { slots.hold($0, catalog: rules.catalog) }
        }.get()
    }

    /// Confirms a hold; see ``Ledger/confirm(_:by:at:)``.
    @discardableResult
    public func confirm(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try confirmation(slot, by: user, at: now).booking
    }

    /// ``confirm(_:by:at:)``, saying whether the booking was made by an earlier confirm of the
    /// same hold (``Reservation/isReplay``: nothing changed, so a journal records nothing).
    public func confirmation(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Reservation {
        let ref = try rules.catalog.resolve(slot)
        return try locked(ref, user) { rules, slots, users in
            Decisions.confirm(ref, by: user, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
                .map {
                    Reservation(
                        booking: slots.booking(record: $0.record, catalog: rules.catalog), isReplay: $0.isRepeat)
                }
        }.get()
    }

    /// Releases a hold; see ``Ledger/releaseHold(_:by:at:)``.
    @discardableResult
    public func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Hold {
        let ref = try rules.catalog.resolve(slot)
        return try locked(ref, user) { rules, slots, users in
            Decisions.releaseHold(
                ref, by: user, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users
            ).map { slots.hold($0, catalog: rules.catalog) }
        }.get()
    }

    /// The holds that live at `now`, by slot; each shard is read under its lock in turn.
    public func holds(at now: Instant) -> [Hold] {
        let catalog = rules.catalog
        return shards.indices.flatMap { shard in
            shards.withLock(shard) { $0.currentHolds(catalog: catalog).filter { $0.isLive(at: now) } }
        }.sorted { $0.slot < $1.slot }
    }

    /// Runs `body` holding `ref`'s station shard, then `user`'s stripe.
    private func locked<T>(
        _ ref: SlotRef, _ user: UserID, _ body: (Rules, inout SlotBook, inout UserBook) -> Result<T, Rejection>
    ) -> Result<T, Rejection> {
        let rules = rules
        return withBooks(of: ref, user: user) { slots, users in body(rules, &slots, &users) }
    }
}
