/// Check-out (see <doc:BookingRules>): the owner of a checked-in booking ends its session. The
/// booking becomes ``Booking/Status/fulfilled`` with its ``Booking/checkedOutAt``; like a
/// cancellation it frees its slot (an hour not started can be booked again; one started is past
/// and cannot) and stops counting against its user's limit, so a user with one ride at a time
/// can book the next as soon as this one ends.
extension Decisions {
    /// Checks out booking `record` for `user` at `now`, checking, in order: the owner
    /// (``Rejection/Reason/notOwner``), not already ended (``Rejection/Reason/alreadyCheckedOut``,
    /// ``Rejection/Reason/alreadyCancelled``), checked in (``Rejection/Reason/notCheckedIn``).
    /// - Returns: why not, or `nil` when the booking is checked out.
    /// - Complexity: O(*k*) in the user's live list (to close the booking's entry).
    static func checkOut(
        record: Int, by user: UserID, now: Int64, slots: inout SlotBook, users: inout some UserBooks
    ) -> Rejection.Reason? {
        let booking = slots.records[record]
        guard booking.user == user else { return .notOwner }
        if let reason = Rules.endedReason(booking.status) { return reason }
        guard slots.checkIns[Int32(truncatingIfNeeded: record)] != nil else { return .notCheckedIn }
        commitCheckOut(record, now: now, slots: &slots, users: &users)
        return nil
    }

    /// Records the check-out of active, checked-in `record` at `now`, decided or replayed.
    static func commitCheckOut(_ record: Int, now: Int64, slots: inout SlotBook, users: inout some UserBooks) {
        slots.checkOuts[Int32(truncatingIfNeeded: record)] = now
        close(record, as: .fulfilled, now: now, slots: &slots, users: &users)
    }
}

extension Rules {
    /// Why a booking in `status` can no longer change: ended by a check-out
    /// (``Rejection/Reason/alreadyCheckedOut``) or cancelled or displaced
    /// (``Rejection/Reason/alreadyCancelled``); `nil` while it is active. The one rule every
    /// command on a booking asks first, after the owner.
    static func endedReason(_ status: Booking.Status) -> Rejection.Reason? {
        switch status {
        case .active: nil
        case .fulfilled: .alreadyCheckedOut
        case .cancelled, .displaced: .alreadyCancelled
        }
    }

    /// Whether `presented` opens socket `ref` (``Socket/opens(with:)``).
    func acceptsAccessCode(_ presented: String?, at ref: SlotRef) -> Bool {
        catalog.socket(ref)?.opens(with: presented) ?? true
    }
}

extension Socket {
    /// Whether `presented` opens this socket: the one access-code rule. A socket without a code
    /// needs none; one with a code needs exactly it (`nil` is wrong). Compared in time that
    /// depends on the lengths only, not on where the first difference is.
    public func opens(with presented: String?) -> Bool {
        Self.opens(expected: accessCode, presented: presented)
    }

    /// ``opens(with:)`` for a socket whose code is `expected`.
    package static func opens(expected: String?, presented: String?) -> Bool {
        guard let expected else { return true }
        guard let presented else { return false }
        let (a, b) = (Array(presented.utf8), Array(expected.utf8))
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
