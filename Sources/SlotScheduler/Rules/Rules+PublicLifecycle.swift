/// Public entry points for the lifecycle operations (holds, reschedule, any free socket, check-in), for
/// stores outside this module (the PostgreSQL store): they decide in their own way but refuse
/// with the same ``Rejection`` values, built here by the core's own code.
extension Rules {
    /// Checks what a reschedule names before any state is read: the new slot and the request id,
    /// as ``resolve(_:)-(ReservationRequest)`` does.
    public func resolve(_ request: RescheduleRequest) throws(Rejection) -> SlotRef {
        try resolved(request).to
    }

    /// The refusal of a reschedule of `booking` by `user` at `now` for who may move it, its
    /// status and the change cutoff (with the deadline in the station's zone), or `nil` when it
    /// may be moved; see ``Ledger/reschedule(_:at:)``.
    public func rescheduleRefusal(of booking: Booking, by user: UserID, at now: Instant) -> Rejection? {
        let start = booking.start.secondsSinceEpoch
        guard
            let reason = rescheduleReason(
                owner: booking.user, status: booking.status, start: start, by: user, now: now.secondsSinceEpoch)
        else { return nil }
        var rejection = Rejection(reason, slot: booking.slot, booking: booking.id, user: user)
        if reason == .rescheduleCutoffPassed, let ref = try? catalog.resolve(booking.slot) {
            rejection.instant = Instant(start.saturatingSubtracting(rescheduleCutoffSeconds))
            localize(&rejection, station: ref.station)
        }
        return rejection
    }

    /// The refusal of a confirm or release of a hold that no longer lives
    /// (``Rejection/Reason/holdExpired``), with its expiry in the station's zone.
    public func holdExpiredRejection(slot: Slot, user: UserID, expiresAt: Instant) -> Rejection {
        var rejection = Rejection(.holdExpired, slot: slot, user: user, instant: expiresAt)
        if let ref = try? catalog.resolve(slot) { localize(&rejection, station: ref.station) }
        return rejection
    }

    /// The refusal of a check-in of `booking` by `user` at `now` for `reason`, as
    /// ``Ledger/checkIn(_:by:accessCode:at:)`` gives it (for the window's reasons, its bound in the station's
    /// zone). The store decides the reason; this builds the same ``Rejection``.
    public func checkInRefusal(_ reason: Rejection.Reason, of booking: Booking, by user: UserID, at now: Instant)
        -> Rejection
    {
        guard let ref = try? catalog.resolve(booking.slot) else {
            return Rejection(reason, slot: booking.slot, booking: booking.id, user: user)
        }
        return checkInRejection(
            reason, ref: ref, start: booking.start.secondsSinceEpoch, id: booking.id, by: user,
            now: now.secondsSinceEpoch)
    }

    /// The refusal of an any-socket request for `reason` at candidate `ref`, as
    /// ``Ledger/reserve(_:at:)-(AnySocketRequest,_)`` gives it (for
    /// ``Rejection/Reason/noMatchingSocketFree`` the request's criteria as its value).
    public func anySocketRejection(
        _ reason: Rejection.Reason, request: AnySocketRequest, ref: SlotRef, start: Instant, at now: Instant
    ) -> Rejection {
        var rejection = rejection(
            reason, ref: ref, user: request.user, requestID: request.requestID, reminder: request.reminderSeconds,
            start: start.secondsSinceEpoch, now: now.secondsSinceEpoch)
        if reason == .noMatchingSocketFree { rejection.value = request.criteria }
        return rejection
    }
}
