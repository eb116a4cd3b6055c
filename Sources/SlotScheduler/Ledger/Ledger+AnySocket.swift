extension Ledger {
    /// Books the first free socket of a station that matches `request` (connector, minimum
    /// power), in catalog order, or throws why not (``Rejection/Reason/noMatchingSocketFree``
    /// when every matching socket is taken or closed at that hour). A refusal changes nothing.
    ///
    /// The booking is an ordinary one of the chosen socket, journalled as
    /// ``Event/reserved(_:)``.
    /// - Complexity: O(*k*) in the station's sockets, plus what ``reserve(_:at:)-(ReservationRequest,_)`` costs.
    public mutating func reserve(_ request: AnySocketRequest, at now: Instant) throws(Rejection) -> Booking {
        try book(request, at: now).booking
    }

    /// ``reserve(_:at:)-(AnySocketRequest,_)``, saying whether the booking is new or the one an
    /// earlier request with the same request id made.
    public mutating func book(_ request: AnySocketRequest, at now: Instant) throws(Rejection) -> Reservation {
        try apply(.reserveAnySocket(request), at: now).reservation()
    }
}
