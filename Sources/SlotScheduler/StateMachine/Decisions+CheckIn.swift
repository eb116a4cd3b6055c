/// Check-in and no-shows (see <doc:BookingRules>), shared by ``Ledger`` and ``Scheduler`` like
/// the other decisions.
///
/// A booking can be checked in from its start − ``Policy/earlyCheckInSeconds`` (included) until
/// its start + ``Policy/noShowGraceSeconds`` (excluded: check-in closes then, as a hold expires at
/// its expiry). One not checked in is a no-show from then on: decided by `now` alone, with no timer
/// and nothing written. ``Policy/noShowLimit`` lowers
/// the limit of a user with recent no-shows, counted from their list in the ``UserBook``.
extension Decisions {
    /// The upcoming-bookings limit of `user` (index `u` in `users`) at `now`: their own, or the
    /// ``Policy/noShowLimit`` one when it is lower and they have had enough no-shows among the
    /// bookings that started in its window.
    ///
    /// - Complexity: O(1) without a no-show limit; with one, as `UserBook.noShows`: O(*k* + *w*),
    ///   *k* the user's live entries, *w* their ended bookings that started in the window.
    ///
    /// `users` is `inout` though nothing is changed, and the no-show count gets the grace period
    /// rather than `rules`: handing a book or the rules *by value* to the out-of-line count made
    /// every reservation copy both to the stack first (277 + 104 bytes, callgrind: `memcpy` on
    /// every call), whether the count ran or not.
    @inline(__always)
    static func limit(_ user: UserID, _ u: Int, now: Int64, rules: Rules, users: inout UserBook) -> Int32 {
        let limit = rules.hasUserLimits ? rules.userLimit(user) : rules.defaultLimit
        guard rules.noShowLimit < limit, let rule = rules.noShowRule else { return limit }
        return lowered(limit, rule: rule, u, now: now, grace: rules.policy.noShowGraceSeconds, users: &users)
    }

    @inline(never)
    private static func lowered(
        _ limit: Int32, rule: NoShowRule, _ u: Int, now: Int64, grace: Int64, users: inout UserBook
    ) -> Int32 {
        let since = now.saturatingSubtracting(rule.windowSeconds)
        let count = users.noShows(u, at: now, since: since, grace: grace)
        return count >= rule.noShows ? rule.limit : limit
    }

    /// Checks in booking `record` for `user` at `now`, checking, in order: the owner
    /// (``Rejection/Reason/notOwner``), active (``Rejection/Reason/alreadyCancelled``,
    /// ``Rejection/Reason/alreadyCheckedOut``), the socket's access code when it has one
    /// (``Rejection/Reason/wrongAccessCode``), a check-in already made (then nothing changes
    /// and `nil` is returned: a repeat gives the booking again), the window
    /// (``Rejection/Reason/checkInNotOpen``, ``Rejection/Reason/checkInClosed``).
    /// - Returns: why not, or `nil` when the booking is checked in.
    /// - Complexity: O(*k*) in the user's live list (to flag the booking's entry).
    static func checkIn(
        record: Int, by user: UserID, accessCode: String?, now: Int64, rules: Rules, slots: inout SlotBook,
        users: inout UserBook
    ) -> Rejection.Reason? {
        let booking = slots.records[record]
        guard booking.user == user else { return .notOwner }
        if let reason = Rules.endedReason(booking.status) { return reason }
        guard rules.acceptsAccessCode(accessCode, at: booking.ref) else { return .wrongAccessCode }
        if slots.checkIns[Int32(truncatingIfNeeded: record)] != nil { return nil }
        if let reason = rules.checkInReason(start: booking.start, now: now) { return reason }
        commitCheckIn(record, now: now, slots: &slots, users: &users)
        return nil
    }

    /// Records the check-in of active `record` at `now`, decided or replayed.
    static func commitCheckIn(_ record: Int, now: Int64, slots: inout SlotBook, users: inout UserBook) {
        let booking = slots.records[record]
        slots.checkIns[Int32(truncatingIfNeeded: record)] = now
        if let u = users.find(booking.user) {
            users.markCheckedIn(slots.bookingID(record: record), start: booking.start, of: u)
        }
        slots.log(.checkedIn, record, at: now)
    }
}

extension Rules {
    /// Why a booking starting at `start` cannot be checked in at `now`, or `nil`: the one
    /// check-in window rule.
    func checkInReason(start: Int64, now: Int64) -> Rejection.Reason? {
        if now < start.saturatingSubtracting(policy.earlyCheckInSeconds) { return .checkInNotOpen }
        if Booking.isNoShow(start: start, at: now, grace: policy.noShowGraceSeconds) { return .checkInClosed }
        return nil
    }

    /// The full refusal of a check-in of booking `id` (at `ref`, starting at `start`) by `user` at
    /// `now`; ``checkInRefusal(_:of:by:at:)`` for other stores.
    func checkInRejection(
        _ reason: Rejection.Reason, ref: SlotRef, start: Int64, id: BookingID, by user: UserID, now: Int64
    ) -> Rejection {
        var r = rejection(reason, ref: ref, user: user, requestID: nil, reminder: nil, start: start, now: now)
        r.booking = id
        return r
    }
}

extension Rejection {
    /// This refusal with the limit that applied (a lowered one, ``Policy/noShowLimit``).
    func withLimit(_ limit: Int32) -> Rejection {
        var r = self
        r.limit = Int(limit)
        return r
    }
}
