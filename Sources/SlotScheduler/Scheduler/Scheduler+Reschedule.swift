extension Scheduler {
    /// Moves a booking to another slot of its station; see ``Ledger/reschedule(_:at:)``.
    ///
    /// Atomic: a station's slots are all in one shard, so the booking's old and new slot are
    /// under one shard lock, taken (then the user's stripe lock) in the order every operation
    /// takes locks. No other operation sees the booking half moved, and there is no second shard
    /// lock to order.
    @discardableResult
    public func reschedule(_ request: RescheduleRequest, at now: Instant) throws(Rejection) -> Reservation {
        let resolved = try rules.resolved(request)
        guard let shard = shard(of: request.booking) else {
            throw Rejection(
                .unknownBooking, slot: request.slot, booking: request.booking, user: request.user,
                requestID: request.requestID)
        }
        let rules = rules
        let result = withBooks(shard: shard, stripe: stripe(of: request.user)) { slots, users in
            Decisions.reschedule(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
        }
        switch result {
        case .success(let reservation): return reservation
        case .failure(let rejection): throw rejection
        }
    }
}
