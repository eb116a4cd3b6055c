/// The hold decisions (see ``Hold`` and `SlotBook+Holds.swift`), shared by ``Ledger`` and
/// ``Scheduler`` like the others: each validates and commits as one step on the books it is given.
extension Decisions {
    /// Holds `ref` for `user` until `now + holdSeconds`, checking, in order: the time rules
    /// (`Rules.checkTime`, with the reminder), availability, occupancy (a booking:
    /// ``Rejection/Reason/slotTaken``; a live hold, the user's own included:
    /// ``Rejection/Reason/slotHeld``; an expired hold is free), the user's limit (live holds count
    /// with upcoming bookings), then ``Policy/maxHoldsPerUser``.
    /// - Returns: the new hold's index.
    /// - Complexity: O(1), plus O(*k*) in the user's live list for the two limits.
    static func hold(
        _ ref: SlotRef, user: UserID, reminder: Int64?, now: Int64, rules: Rules, slots: inout SlotBook,
        users: inout UserBook
    ) -> Result<Int, Rejection> {
        func refuse(_ reason: Rejection.Reason, _ start: Int64) -> Result<Int, Rejection> {
            .failure(
                rules.rejection(
                    reason, ref: ref, user: user, requestID: nil, reminder: reminder, start: start, now: now))
        }
        let (reason, start, page, day) = checkSlot(ref, reminder: reminder, now: now, rules: rules, slots: &slots)
        if let reason { return refuse(reason, start) }
        if let taken = slots.takenReason(ref, word: day, now: now) { return refuse(taken, start) }
        let u = users.findOrInsert(user)
        let limit = Decisions.limit(user, u, now: now, rules: rules, users: &users)
        if users.upcomingCount(u, at: now, reaching: limit) >= limit {
            return refuse(.userLimitReached, start).mapError { $0.withLimit(limit) }
        }
        if users.liveHolds(u, at: now) >= rules.policy.maxHoldsPerUser { return refuse(.holdLimitReached, start) }
        let record = HoldRecord(
            user: user, start: start, createdAt: now, expiresAt: now.saturatingAdding(rules.policy.holdSeconds),
            ref: ref, reminder: reminder.map { Int32(clamping: $0) } ?? -1, state: .held, booking: -1)
        return .success(commitHold(record, block: page, user: u, slots: &slots, users: &users))
    }

    /// Records a hold, decided or replayed: its cell, its user's entry, the journal.
    static func commitHold(_ record: HoldRecord, block: Int, user u: Int, slots: inout SlotBook, users: inout UserBook)
        -> Int
    {
        let h = slots.holds.count
        slots.holds.append(record)
        slots.occupy(record.ref, block: block, hold: h)
        slots.lastHold[HoldKey(user: record.user, ref: record.ref)] = Int32(truncatingIfNeeded: h)
        users.addHold(slots.holdEntryID(h), expiresAt: record.expiresAt, to: u)
        slots.log(.held, h, at: record.createdAt)
        return h
    }

    /// The user's latest hold of `ref` that is neither released nor, when `confirmedToo` is
    /// false, confirmed; or `nil`.
    static func latestHold(_ ref: SlotRef, of user: UserID, slots: SlotBook, confirmedToo: Bool) -> Int? {
        guard let h = slots.lastHold[HoldKey(user: user, ref: ref)].map(Int.init) else { return nil }
        switch slots.holds[h].state {
        case .held: return h
        case .confirmed: return confirmedToo ? h : nil
        case .released: return nil
        }
    }

    /// ``latestHold(_:of:slots:confirmedToo:)``, or why there is none to act on:
    /// ``Rejection/Reason/released`` on a released date (its holds are forgotten, and a confirmed
    /// one's booking is released), else ``Rejection/Reason/unknownHold``.
    static func heldHold(_ ref: SlotRef, of user: UserID, rules: Rules, slots: SlotBook, confirmedToo: Bool)
        -> Result<Int, Rejection>
    {
        if ref.day < slots.releasedBefore {
            return .failure(
                Rejection(.released, slot: rules.catalog.slot(ref), user: user, date: LocalDate(dayNumber: ref.day)))
        }
        guard let h = latestHold(ref, of: user, slots: slots, confirmedToo: confirmedToo) else {
            return .failure(Rejection(.unknownHold, slot: rules.catalog.slot(ref), user: user))
        }
        return .success(h)
    }

    /// The refusal of a hold that no longer lives at `now`, with its expiry.
    static func expired(_ h: Int, user: UserID, rules: Rules, slots: SlotBook) -> Rejection {
        let hold = slots.holds[h]
        var rejection = Rejection(
            .holdExpired, slot: rules.catalog.slot(hold.ref), user: user, instant: Instant(hold.expiresAt))
        rules.localize(&rejection, station: hold.ref.station)
        return rejection
    }

    /// Turns the user's live hold of `ref` into a booking, checking, in order: a hold to confirm
    /// (``Rejection/Reason/unknownHold``; a hold already confirmed gives its booking again),
    /// that it lives at `now` and still has its slot (``Rejection/Reason/holdExpired``), the time
    /// rules, availability, the user's limit counting the hold once (the booking replaces it).
    /// - Returns: the booking's record, and whether it was made by an earlier confirm.
    /// - Complexity: O(*k*) in the user's live list (the hold's entry is replaced by the booking's).
    static func confirm(
        _ ref: SlotRef, by user: UserID, now: Int64, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) -> Result<(record: Int, isRepeat: Bool), Rejection> {
        let h: Int
        switch heldHold(ref, of: user, rules: rules, slots: slots, confirmedToo: true) {
        case .success(let found): h = found
        case .failure(let rejection): return .failure(rejection)
        }
        let hold = slots.holds[h]
        if hold.state == .confirmed { return .success((Int(hold.booking), true)) }
        guard slots.isCurrent(hold: h), Hold.isLive(expiresAt: hold.expiresAt, at: now) else {
            return .failure(expired(h, user: user, rules: rules, slots: slots))
        }
        let reminder = hold.reminder < 0 ? nil : Int64(hold.reminder)
        func refuse(_ reason: Rejection.Reason, _ start: Int64) -> Result<(record: Int, isRepeat: Bool), Rejection> {
            .failure(
                rules.rejection(
                    reason, ref: ref, user: user, requestID: nil, reminder: reminder, start: start, now: now))
        }
        let (reason, start, page, _) = checkSlot(ref, reminder: reminder, now: now, rules: rules, slots: &slots)
        if let reason { return refuse(reason, start) }
        // The hold counts among the user's upcoming bookings and holds; the booking takes its
        // place. Checked again because a hold admitted at a later `now` (when this one had
        // expired) may count now.
        let u = users.findOrInsert(user)
        let limit = Decisions.limit(user, u, now: now, rules: rules, users: &users)
        if users.upcomingCount(u, at: now, reaching: limit) &- 1 >= limit {
            return refuse(.userLimitReached, start).mapError { $0.withLimit(limit) }
        }
        return .success((commitConfirm(h, start: start, block: page, now: now, slots: &slots, users: &users), false))
    }

    /// Records the confirmation of current hold `h` at `now`, decided or replayed: the booking
    /// takes the hold's cell and, in the user's list, the hold's place.
    /// - Returns: the booking's record.
    static func commitConfirm(
        _ h: Int, start: Int64, block: Int, now: Int64, slots: inout SlotBook, users: inout UserBook
    ) -> Int {
        let hold = slots.holds[h]
        let u = users.findOrInsert(hold.user)
        users.remove(slots.holdEntryID(h), from: u, isHold: true)
        let record = slots.records.count
        slots.holds[h].state = .confirmed
        slots.holds[h].booking = Int32(truncatingIfNeeded: record)
        let request = ResolvedRequest(
            ref: hold.ref, user: hold.user, requestID: nil, reminder: hold.reminder < 0 ? nil : Int64(hold.reminder))
        _ = commit(
            request, start: start, block: block, user: u, now: now, slots: &slots, users: &users, as: .holdConfirmed)
        return record
    }

    /// Releases the user's live hold of `ref` at once: ``Rejection/Reason/unknownHold`` without
    /// one, ``Rejection/Reason/holdExpired`` when it no longer lives.
    /// - Returns: the hold's index.
    static func releaseHold(
        _ ref: SlotRef, by user: UserID, now: Int64, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) -> Result<Int, Rejection> {
        let h: Int
        switch heldHold(ref, of: user, rules: rules, slots: slots, confirmedToo: false) {
        case .success(let found): h = found
        case .failure(let rejection): return .failure(rejection)
        }
        guard slots.isCurrent(hold: h), Hold.isLive(expiresAt: slots.holds[h].expiresAt, at: now) else {
            return .failure(expired(h, user: user, rules: rules, slots: slots))
        }
        commitRelease(h, now: now, slots: &slots, users: &users)
        return .success(h)
    }

    /// Records the release of current hold `h`, decided or replayed.
    static func commitRelease(_ h: Int, now: Int64, slots: inout SlotBook, users: inout UserBook) {
        let hold = slots.holds[h]
        slots.occupy(hold.ref, block: slots.pageIndex(hold.ref.day), record: nil)
        slots.holds[h].state = .released
        if let u = users.find(hold.user) { users.remove(slots.holdEntryID(h), from: u, isHold: true) }
        slots.log(.holdReleased, h, at: now)
    }
}
