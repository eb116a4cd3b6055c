/// Public entry points into the booking rules for stores outside this module (the PostgreSQL
/// store), so they reuse the rules instead of re-implementing them.
extension Rules {
    /// Checks what a reservation names before any state is read: the slot (``Catalog/resolve(_:)``:
    /// station, socket, hour, date) and the request id (``IdentifierRule``). Every store calls
    /// this first, so an id that breaks the rule is never stored.
    public func resolve(_ request: ReservationRequest) throws(Rejection) -> SlotRef {
        let ref = try catalog.resolve(request.slot)
        if let id = request.requestID, !IdentifierRule.isValid(id.rawValue) {
            throw Rejection(
                .invalidRequestID, slot: request.slot, user: request.user, value: IdentifierRule.shortened(id.rawValue))
        }
        return ref
    }

    /// The time, notice, horizon and reminder check of
    /// ``Ledger/reserve(_:at:)-(ReservationRequest,_)``: the reason a slot cannot be booked at
    /// `now` (or `nil`) and the instant it starts (meaningless for
    /// ``Rejection/Reason/nonexistentLocalTime``); ``Rejection/Reason/unknownStation`` for a
    /// reference another catalog issued.
    public func timeCheck(_ ref: SlotRef, reminderSeconds: Int64?, at now: Instant) -> (
        reason: Rejection.Reason?, start: Instant
    ) {
        guard catalog.owns(ref) else { return (.unknownStation, Instant(secondsSinceEpoch: 0)) }
        let (reason, start) = checkTime(ref, reminder: reminderSeconds, now: now.secondsSinceEpoch)
        return (reason, Instant(start))
    }

    /// The full refusal, with the same details the in-memory scheduler gives, for `reason`;
    /// ``Rejection/Reason/unknownStation`` for a reference another catalog issued.
    public func rejection(
        _ reason: Rejection.Reason, ref: SlotRef, user: UserID, requestID: RequestID?, reminderSeconds: Int64?,
        start: Instant, at now: Instant
    ) -> Rejection {
        guard catalog.owns(ref) else {
            return Rejection(.unknownStation, slot: catalog.slot(ref), user: user, requestID: requestID)
        }
        return rejection(
            reason, ref: ref, user: user, requestID: requestID, reminder: reminderSeconds,
            start: start.secondsSinceEpoch, now: now.secondsSinceEpoch)
    }

    /// Whether a booking starting at `start` can still be cancelled at `now`.
    public func canCancel(start: Instant, at now: Instant) -> Bool {
        canCancel(start: start.secondsSinceEpoch, now: now.secondsSinceEpoch)
    }

    /// The refusal of a cancellation of `booking` by `user` at `now`, with the same reason and
    /// details (the deadline in the station's local time) the in-memory scheduler gives, or `nil`
    /// when the cancellation is allowed.
    public func cancelRefusal(of booking: Booking, by user: UserID, at now: Instant) -> Rejection? {
        let start = booking.start.secondsSinceEpoch
        guard
            let reason = cancelReason(
                owner: booking.user, status: booking.status, start: start, by: user, now: now.secondsSinceEpoch)
        else { return nil }
        guard let ref = try? catalog.resolve(booking.slot) else {
            return Rejection(reason, slot: booking.slot, booking: booking.id, user: user)
        }
        return cancelRejection(reason, ref: ref, start: start, id: booking.id, by: user)
    }
}

extension UserBookings {
    /// Splits `bookings` at `now` exactly as the in-memory scheduler does.
    public init(bookings: [Booking], at now: Instant) { self.init(bookings, at: now) }

    /// Splits `bookings` at `now` with the no-show grace of `policy`.
    public init(bookings: [Booking], at now: Instant, policy: Policy) {
        self.init(bookings, at: now, grace: policy.noShowGraceSeconds)
    }
}

extension DayView {
    /// A day view assembled by another store (the memberwise initializer is internal).
    public static func assembled(station: StationID, date: LocalDate, sockets: [SocketDay]) -> DayView {
        DayView(station: station, date: date, sockets: sockets)
    }
}

extension DayView.SocketDay {
    /// One socket's row of a day view, for ``DayView/assembled(station:date:sockets:)``.
    public static func assembled(socket: Socket, hours: [SlotStatus]) -> DayView.SocketDay {
        DayView.SocketDay(socket: socket.id, connector: socket.connector, powerKW: socket.powerKW, hours: hours)
    }
}
