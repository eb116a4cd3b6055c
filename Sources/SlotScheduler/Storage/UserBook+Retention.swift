extension UserBook {
    /// Drops released bookings and holds (their ``SlotBook/holdEntryID(_:)``) from their users'
    /// lists, and forgets the request ids
    /// of released records (each only while it still names the released booking: a request id
    /// a later booking reused is kept).
    ///
    /// `released` must be sorted by user (any order of bookings within a user).
    /// - Complexity: O(*r* log *r* + *e*) for *r* released bookings and *e* the active entries
    ///   of their users; plus O(1) per forgotten request.
    mutating func release(
        _ released: ArraySlice<SlotBook.ReleasedBooking>, forgetting requests: [SlotBook.ForgottenRequest]
    ) {
        var start = released.startIndex
        while start < released.endIndex {
            let user = released[start].user
            var end = start
            while end < released.endIndex, released[end].user == user { end += 1 }
            if let u = find(user) {
                let ids = released[start..<end].map(\.booking).sorted()
                drop(ids, from: u)
            }
            start = end
        }
        for request in requests where self.requests[request.key]?.booking == request.booking {
            self.requests[request.key] = nil
        }
    }

    /// Forgets the reschedule request ids whose move went to a date before `cutoff` (released):
    /// as a reservation's request id, a retry of such a move is refused (its date is released,
    /// so it never moves twice) and the id may name a new move.
    ///
    /// - Complexity: O(*m*) in the remembered reschedule request ids (held ones only, after the
    ///   first release).
    mutating func forgetMoves(before cutoff: Int32) {
        guard reschedules.contains(where: { $0.value.to.day < cutoff }) else { return }
        reschedules = reschedules.filter { $0.value.to.day >= cutoff }
    }

    /// Unlinks every entry of user `u` whose booking (or hold entry) is in `ids` (sorted).
    private mutating func drop(_ ids: [BookingID], from u: Int) {
        for ended in [false, true] {
            var holds: Int32 = 0
            let removed = unlinkEntries(of: u, ended: ended, firstOnly: false) { id in
                guard Self.contains(ids, id) else { return false }
                if SlotBook.isHoldEntry(id) { holds += 1 }
                return true
            }
            if ended { updateEndedMinute(of: u) } else { states[u].active -= removed }
            // ``activeTotal`` does not count holds.
            activeTotal -= Int(removed - holds)
        }
    }

    private static func contains(_ sorted: [BookingID], _ id: BookingID) -> Bool {
        var low = 0
        var high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low < sorted.count && sorted[low] == id
    }
}
