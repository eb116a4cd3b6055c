/// Holds in a ``UserBook``.
///
/// A hold sits in its user's live list like a booking, with ``UserBook/holdFlag`` set and a
/// start of `expiresAt - 1 hour`, so "not yet ended" means "not yet expired": the limit check
/// counts live holds with upcoming bookings at no extra cost, and the ended list keeps an
/// expired hold's entry where a check with an earlier `now` still counts it, as it does for
/// bookings. A hold's entry leaves the list when the hold is confirmed or released; the entry
/// of a hold whose slot was taken after it expired stays, counting only at a `now` before its
/// expiry.
extension UserBook {
    /// The entry flag of a hold.
    static let holdFlag: UInt8 = 1

    /// The entry start that makes a hold expiring at `expiresAt` count exactly while it lives.
    static func holdEntryStart(expiresAt: Int64) -> Int64 {
        expiresAt.saturatingSubtracting(Booking.durationSeconds)
    }

    /// Adds a live hold's entry (``SlotBook/holdEntryID(_:)``) to the user's list.
    mutating func addHold(_ id: BookingID, expiresAt: Int64, to user: Int) {
        add(id, start: Self.holdEntryStart(expiresAt: expiresAt), to: user, flags: Self.holdFlag)
    }

    /// How many of the user's holds live at `now`.
    ///
    /// - Complexity: O(*k*) in the live list, plus the ended entries that have not ended at `now`
    ///   (none unless `now` went back); the live list is about the limit long.
    func liveHolds(_ user: Int, at now: Int64) -> Int {
        var count = 0
        var e = states[user].head
        while e >= 0 {
            let entry = entries[Int(e)]
            if entry.flags & Self.holdFlag != 0, Booking.isUpcoming(start: entry.start, at: now) { count += 1 }
            e = entry.next
        }
        e = states[user].ended
        while e >= 0, Booking.isUpcoming(start: entries[Int(e)].start, at: now) {
            if entries[Int(e)].flags & Self.holdFlag != 0 { count += 1 }
            e = entries[Int(e)].next
        }
        return count
    }
}
