/// Reschedule: the decision shared by ``Ledger`` and ``Scheduler``.
///
/// A booking moves only within its station, so the old and the new slot are in one book (one
/// shard of a ``Scheduler``): the check and the move are one step under the locks the caller
/// holds, and the move frees the old slot and takes the new one with no refusal between them.
extension Decisions {
    /// Moves a booking, checking, in order: the booking exists, the request id, owner, status and
    /// the change cutoff (`Rules.rescheduleReason`), the same station, the time rules for the new
    /// slot with the booking's reminder (`Rules.checkTime`), availability, occupancy (the booking's
    /// own slot is not in its way), and the user's limit with the booking counted once.
    ///
    /// - Complexity: O(*k*) in the user's active bookings (the user's entry moves).
    static func reschedule(
        _ request: ResolvedReschedule, now: Int64, rules: Rules, slots: inout SlotBook, users: inout UserBook
    ) -> Result<Reservation, Rejection> {
        let id = request.booking
        var refusal = request.unknownBooking(slot: rules.catalog.slot(request.to))
        guard let record = slots.record(of: id) else {
            if slots.wasReleased(id) { refusal.reason = .released }
            return .failure(refusal)
        }
        if let requestID = request.requestID,
            let seen = users.reschedules[UserBook.RequestKey(user: request.user, id: requestID)],
            seen.to.day >= slots.releasedBefore
        {
            guard seen.booking == id, seen.to == request.to else {
                refusal.reason = .conflictingRequestID
                refusal.value = requestID.rawValue
                return .failure(refusal)
            }
            return .success(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: true))
        }
        let booking = slots.records[record]
        if let reason = rules.rescheduleReason(
            owner: booking.user, status: booking.status, start: booking.start, by: request.user, now: now)
        {
            return .failure(rules.rescheduleRejection(reason, of: booking, id: id, by: request.user))
        }
        guard request.to.station == booking.ref.station else {
            refusal.reason = .rescheduleToOtherStation
            refusal.value = rules.catalog.station(at: booking.ref.station).id.rawValue
            return .failure(refusal)
        }
        let reminder: Int64? = booking.reminder < 0 ? nil : Int64(booking.reminder)
        let (reason, start, block) = moveCheck(
            record, to: request.to, reminder: reminder, now: now, rules: rules, slots: &slots, users: &users)
        if let reason {
            var rejection = rules.rejection(
                reason, ref: request.to, user: request.user, requestID: request.requestID, reminder: reminder,
                start: start, now: now)
            rejection.booking = id
            return .failure(rejection)
        }
        move(
            record, to: request.to, start: start, block: block, requestID: request.requestID, now: now,
            slots: &slots, users: &users)
        return .success(Reservation(booking: slots.booking(record: record, catalog: rules.catalog), isReplay: false))
    }

    /// Why active `record` cannot move to `ref` of its station at `now`, or `nil`; with the new
    /// slot's start and day block.
    static func moveCheck(
        _ record: Int, to ref: SlotRef, reminder: Int64?, now: Int64, rules: Rules, slots: inout SlotBook,
        users: inout UserBook
    ) -> (reason: Rejection.Reason?, start: Int64, block: Int) {
        let (reason, start, block, day) = checkSlot(ref, reminder: reminder, now: now, rules: rules, slots: &slots)
        if let reason { return (reason, start, block) }
        // Its own slot is not taken for it: a move to where it is changes nothing. (The cell is read
        // only for a taken slot.)
        if let taken = slots.takenReason(ref, word: day, now: now), slots.occupant(ref) != record {
            return (taken, start, block)
        }
        // The booking being moved has not started (the cutoff check passed), so it is one of the
        // user's upcoming bookings already: it must not count against the limit a second time.
        let user = slots.records[record].user
        let u = users.findOrInsert(user)
        let limit = Decisions.limit(user, u, now: now, rules: rules, users: &users)
        if users.upcomingCount(u, at: now, reaching: limit) &- 1 >= limit { return (.userLimitReached, start, block) }
        return (nil, start, block)
    }

    /// Moves active `record` to `ref` (starting at `start`, in day block `block`): the commit step
    /// of a reschedule, decided (``reschedule(_:now:rules:slots:users:)``) or replayed
    /// (``Replay``). Frees the old slot and takes the new one in one step, in that order (so a
    /// move to the booking's own slot keeps it taken), moves the user's entry to the new start,
    /// remembers the request id and journals one ``Event/rescheduled(_:at:)``.
    static func move(
        _ record: Int, to ref: SlotRef, start: Int64, block: Int, requestID: RequestID?, now: Int64,
        slots: inout SlotBook, users: inout UserBook
    ) {
        let old = slots.records[record]
        let id = slots.bookingID(record: record)
        let oldBlock = slots.pageIndex(old.ref.day)
        slots.occupy(old.ref, block: oldBlock, record: nil)
        slots.occupy(ref, block: block, record: record)
        slots.records[record].ref = ref
        slots.records[record].start = start
        slots.indexReminder(of: record, previousStart: old.start)
        let u = users.findOrInsert(old.user)
        users.remove(id, from: u)
        users.add(id, start: start, to: u)
        // A check-in was for the old hour: the moved booking is checked in again in its new window.
        if !slots.checkIns.isEmpty { slots.checkIns[Int32(truncatingIfNeeded: record)] = nil }
        let index = Int32(truncatingIfNeeded: slots.moves.count)
        if slots.firstMove[Int32(truncatingIfNeeded: record)] == nil {
            slots.firstMove[Int32(truncatingIfNeeded: record)] = index
        }
        slots.moves.append(
            MoveRecord(
                record: Int32(truncatingIfNeeded: record), from: old.ref, fromStart: old.start, to: ref, toStart: start,
                requestID: requestID))
        if let requestID {
            users.reschedules[UserBook.RequestKey(user: old.user, id: requestID)] = .init(booking: id, to: ref)
        }
        slots.log(.rescheduled, Int(index), at: now)
    }
}

/// One move as stored: which record, from where, to where, and the request id that asked.
struct MoveRecord: Sendable, Equatable {
    var record: Int32
    var from: SlotRef
    var fromStart: Int64
    var to: SlotRef
    var toStart: Int64
    var requestID: RequestID?
}

/// A ``RescheduleRequest`` with its new slot resolved against the catalog.
struct ResolvedReschedule: Sendable {
    var booking: BookingID
    var user: UserID
    var to: SlotRef
    var requestID: RequestID?

    /// The refusal of this move when no book holds the booking (`slot` is ``to``'s); the one
    /// every face gives, whether it finds no shard for the id or the shard has no record.
    func unknownBooking(slot: Slot) -> Rejection {
        Rejection(.unknownBooking, slot: slot, booking: booking, user: user, requestID: requestID)
    }
}

extension Rules {
    /// The change cutoff of a reschedule: ``Policy/rescheduleCutoffSeconds``, else the
    /// cancellation cutoff.
    var rescheduleCutoffSeconds: Int64 { policy.rescheduleCutoffSeconds ?? policy.cancellationCutoffSeconds }

    /// Why `user` cannot move, at `now`, a booking of `owner` in `status` that starts at `start`
    /// (owner only, active only, before the change cutoff), or `nil` when they can: the
    /// cancellation rule (`changeReason`) with the reschedule cutoff.
    func rescheduleReason(owner: UserID, status: Booking.Status, start: Int64, by user: UserID, now: Int64)
        -> Rejection.Reason?
    {
        changeReason(
            owner: owner, status: status, start: start, by: user, now: now, cutoff: rescheduleCutoffSeconds,
            passed: .rescheduleCutoffPassed)
    }

    /// The full refusal of a reschedule of `record` for a `rescheduleReason`; with the deadline,
    /// in the station's zone, when the cutoff has passed.
    func rescheduleRejection(_ reason: Rejection.Reason, of record: BookingRecord, id: BookingID, by user: UserID)
        -> Rejection
    {
        var rejection = Rejection(reason, slot: catalog.slot(record.ref), booking: id, user: user)
        if reason == .rescheduleCutoffPassed {
            rejection.instant = Instant(record.start.saturatingSubtracting(rescheduleCutoffSeconds))
            localize(&rejection, station: record.ref.station)
        }
        return rejection
    }

    /// Checks what a reschedule names before any state is read: the new slot and the request id,
    /// as ``resolve(_:)-(ReservationRequest)`` does.
    func resolved(_ request: RescheduleRequest) throws(Rejection) -> ResolvedReschedule {
        let ref = try resolve(ReservationRequest(slot: request.slot, user: request.user, requestID: request.requestID))
        return ResolvedReschedule(booking: request.booking, user: request.user, to: ref, requestID: request.requestID)
    }
}
