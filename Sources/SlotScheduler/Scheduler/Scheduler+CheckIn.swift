extension Scheduler {
    /// Checks a booking in; see ``Ledger/checkIn(_:by:at:)``. Runs under the booking's shard
    /// lock, then the user's stripe, like ``cancel(_:by:at:)``.
    @discardableResult
    public func checkIn(_ id: BookingID, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        guard let shard = shard(of: id) else { throw Rejection(.unknownBooking, booking: id, user: user) }
        let stripe = stripe(of: user)
        let rules = rules
        let result: Result<Booking, Rejection> = shards.withLock(shard) { slots in
            guard let record = slots.record(of: id) else {
                return .failure(Rejection(slots.wasReleased(id) ? .released : .unknownBooking, booking: id, user: user))
            }
            let reason = stripes.withLock(stripe) { users in
                Decisions.checkIn(
                    record: record, by: user, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
            }
            guard let reason else { return .success(slots.booking(record: record, catalog: rules.catalog)) }
            return .failure(
                rules.checkInRejection(reason, of: slots.records[record], id: id, by: user, now: now.secondsSinceEpoch))
        }
        return try result.get()
    }
}
