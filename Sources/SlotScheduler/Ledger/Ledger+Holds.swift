/// Hold, then confirm: see ``Hold``.
extension Ledger {
    /// Holds `slot` for `user` until `now +` ``Policy/holdSeconds``, or throws why not. A refusal
    /// changes nothing.
    ///
    /// Refusals, in order: the slot's names, the time rules, availability,
    /// ``Rejection/Reason/slotTaken`` or ``Rejection/Reason/slotHeld``, the user's limit (live
    /// holds count), ``Rejection/Reason/holdLimitReached``.
    /// - Parameters:
    ///   - slot: the slot to hold.
    ///   - user: who holds it.
    ///   - reminder: the reminder of the booking that confirming the hold makes.
    ///   - now: the caller's clock; the hold expires ``Policy/holdSeconds`` after it.
    /// - Complexity: O(1), plus O(*k*) in the user's live bookings and holds.
    @discardableResult
    public mutating func hold(_ slot: Slot, for user: UserID, reminder: Duration? = nil, at now: Instant)
        throws(Rejection) -> Hold
    {
        try apply(.hold(slot, user: user, reminder: reminder), at: now).hold()
    }

    /// Turns the user's hold of `slot` into a booking, atomically, while it lives; a hold that
    /// expired (at or after its ``Hold/expiresAt``) is refused with
    /// ``Rejection/Reason/holdExpired``. Confirming a hold again returns the booking it made.
    /// - Complexity: O(*k*) in the user's live bookings and holds.
    @discardableResult
    public mutating func confirm(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Booking {
        try apply(.confirm(slot, user: user), at: now).booking()
    }

    /// Releases the user's live hold of `slot`: the slot is free at once.
    @discardableResult
    public mutating func releaseHold(_ slot: Slot, by user: UserID, at now: Instant) throws(Rejection) -> Hold {
        try apply(.releaseHold(slot, user: user), at: now).hold()
    }

    /// The holds that live at `now`, by slot.
    ///
    /// - Complexity: O(*h*) in the holds made and not released (``releaseDays(before:at:)``).
    public func holds(at now: Instant) -> [Hold] {
        slots.currentHolds(catalog: rules.catalog).filter { $0.isLive(at: now) }
    }
}
