/// Check-ins, no-shows and closed bookings in a ``UserBook``.
///
/// A checked-in booking's entry carries ``UserBook/checkedInFlag``, so the no-show count reads
/// only the user's lists, never the booking records. Cancelled and displaced bookings leave the
/// lists (they count for nothing) and are remembered per user in `closed`, for
/// ``UserBookings/cancelled``, until their date is released.
extension UserBook {
    /// The entry flag of a booking that was checked in.
    static let checkedInFlag: UInt8 = 2

    /// A cancelled or displaced booking of a user, with its slot's day number (for retention).
    struct ClosedEntry: Sendable, Equatable {
        var booking: BookingID
        var day: Int32
    }

    /// Marks `booking`'s entry checked in. Its entry is in the live list or, once a limit check
    /// saw it ended, in the ended list among the entries that start later or at its `start`.
    ///
    /// - Complexity: O(*k*) in the live list, plus the ended entries starting at or after `start`.
    mutating func markCheckedIn(_ booking: BookingID, start: Int64, of user: Int) {
        var e = states[user].head
        while e >= 0 {
            if entries[Int(e)].booking == booking {
                entries[Int(e)].flags |= Self.checkedInFlag
                return
            }
            e = entries[Int(e)].next
        }
        e = states[user].ended
        while e >= 0, entries[Int(e)].start >= start {
            if entries[Int(e)].booking == booking {
                entries[Int(e)].flags |= Self.checkedInFlag
                return
            }
            e = entries[Int(e)].next
        }
    }

    /// How many of the user's active bookings that started at or after `since` were no-shows at
    /// `now`: not checked in, and `now` at or after their start + `grace` (``Booking/isNoShow(start:at:grace:)``).
    ///
    /// - Complexity: O(*k* + *w*): *k* the live list (about the limit long), *w* the ended entries
    ///   that start at or after `since` (the ended list is ordered by start, latest first, so the
    ///   walk stops at the first older one). Never O(history).
    func noShows(_ user: Int, at now: Int64, since: Int64, grace: Int64) -> Int32 {
        func isNoShow(_ entry: UserEntry) -> Bool {
            entry.flags & (Self.holdFlag | Self.checkedInFlag) == 0 && entry.start >= since
                && Booking.isNoShow(start: entry.start, at: now, grace: grace)
        }
        var count: Int32 = 0
        var e = states[user].head
        while e >= 0 {
            if isNoShow(entries[Int(e)]) { count &+= 1 }
            e = entries[Int(e)].next
        }
        e = states[user].ended
        while e >= 0, entries[Int(e)].start >= since {
            if isNoShow(entries[Int(e)]) { count &+= 1 }
            e = entries[Int(e)].next
        }
        return count
    }

    /// Removes a cancelled or displaced booking from the user's active bookings and remembers it
    /// among their closed ones.
    mutating func close(_ booking: BookingID, of user: UserID, day: Int32) {
        if let u = find(user) { remove(booking, from: u) }
        closed[user, default: []].append(ClosedEntry(booking: booking, day: day))
    }

    /// The user's cancelled and displaced bookings, oldest cancellation first.
    func closedBookings(of user: UserID) -> [BookingID] { closed[user]?.map(\.booking) ?? [] }

    /// Forgets the closed bookings dated before day number `cutoff` (released).
    ///
    /// - Complexity: O(*c*) in the closed bookings remembered.
    mutating func forgetClosed(before cutoff: Int32) {
        closed = closed.compactMapValues { entries in
            let kept = entries.filter { $0.day >= cutoff }
            return kept.isEmpty ? nil : kept
        }
    }
}
