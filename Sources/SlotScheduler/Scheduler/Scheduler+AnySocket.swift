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
        try apply(.reserveAnySocket(request), at: now).reservation()
    }
}
