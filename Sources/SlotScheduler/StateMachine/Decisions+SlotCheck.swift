/// The checks every decision that takes a slot makes first, in one place: a reservation, a hold,
/// a confirm and a move each follow them with their own occupancy and limit checks.
extension Decisions {
    /// The slot's start, its day block and socket-day word, and the first refusal among: the time
    /// rules (`Rules.checkTime`, with the reminder), a released day
    /// (``Rejection/Reason/slotInPast`` for every caller, one whose clock is behind included), then
    /// availability (``Rejection/Reason/socketClosed``, ``Rejection/Reason/outsideOpeningHours``).
    /// - Complexity: O(1).
    @inline(__always)
    static func checkSlot(
        _ ref: SlotRef, reminder: Int64?, now: Int64, rules: Rules, slots: inout SlotBook
    ) -> (reason: Rejection.Reason?, start: Int64, block: Int, word: SocketDay) {
        let (timeReason, start) = rules.checkTime(ref, reminder: reminder, now: now)
        let none = SocketDay(open: 0)
        if let timeReason { return (timeReason, start, 0, none) }
        if ref.day < slots.releasedBefore { return (.slotInPast, start, 0, none) }
        let block = slots.pageIndex(ref.day)
        let word = slots.words[slots.wordIndex(ref, block: block)]
        if !word.isOpen(ref.hour) {
            return (word.openHours == 0 ? .socketClosed : .outsideOpeningHours, start, block, word)
        }
        return (nil, start, block, word)
    }
}

extension Decisions {
    /// What `user`'s `requestID` made before, if it is still remembered: a release forgets the
    /// request ids of the bookings it releases, by the date each booking holds (moved or not),
    /// together with their records (see `SlotBook+Retention.swift`).
    /// - Complexity: O(1) expected (one hash lookup).
    @inline(__always)
    static func remembered(_ requestID: RequestID?, of user: UserID, users: UserBook)
        -> UserBook.RememberedRequest?
    {
        guard let requestID else { return nil }
        return users.requests[UserBook.RequestKey(user: user, id: requestID)]
    }
}
