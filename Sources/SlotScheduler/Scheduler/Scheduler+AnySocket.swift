extension Scheduler {
    /// Books the first free matching socket of a station; see
    /// ``Ledger/reserve(_:at:)-(AnySocketRequest,_)``. Atomic: the station's sockets are all in
    /// one shard, and the socket is chosen and booked under its lock (then the user's stripe
    /// lock), so concurrent any-socket requests never share a socket and all matching sockets
    /// fill before the first ``Rejection/Reason/noMatchingSocketFree``.
    public func reserve(_ request: AnySocketRequest, at now: Instant) throws(Rejection) -> Booking {
        try book(request, at: now).booking
    }

    /// ``reserve(_:at:)-(AnySocketRequest,_)``, saying whether the booking is new or a replay.
    public func book(_ request: AnySocketRequest, at now: Instant) throws(Rejection) -> Reservation {
        let resolved = try rules.resolved(request)
        let rules = rules
        let result = withBooks(of: resolved.candidates[0], user: resolved.user) { slots, users in
            Decisions.reserveAny(resolved, now: now.secondsSinceEpoch, rules: rules, slots: &slots, users: &users)
        }
        switch result {
        case .success(let reservation): return reservation
        case .failure(let rejection): throw rejection
        }
    }
}
