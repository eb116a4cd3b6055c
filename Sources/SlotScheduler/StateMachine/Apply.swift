/// The books of the users a command touches: the one ``UserBook`` of a ``Ledger``, or for a
/// ``Scheduler`` each user's stripe, locked for the body (after the station shard's lock, the
/// order every operation takes them in).
protocol UserBooks {
    /// Runs `body` on the book that holds `user`'s state.
    mutating func withBook<T>(of user: UserID, _ body: (inout UserBook) -> T) -> T
}

extension UserBook: UserBooks {
    @inline(__always)
    mutating func withBook<T>(of user: UserID, _ body: (inout UserBook) -> T) -> T { body(&self) }
}

extension Decisions {
    /// The one apply: decides `command` at `now` on the books it names and commits it, or refuses
    /// it and changes nothing. ``Ledger`` calls it on its books; ``Scheduler`` on the station
    /// shard it locked, with its user stripes; every store through the scheduler. The commit
    /// steps it ends in (``commit(_:start:block:user:now:slots:users:as:)``, ``close(_:as:now:slots:users:)``,
    /// ``commitAvailability(_:sockets:now:slots:)``, …) are the ones ``Replay`` applies events with.
    static func apply(
        _ command: ResolvedCommand, now: Int64, rules: Rules, slots: inout SlotBook, users: inout some UserBooks
    ) -> Outcome {
        let catalog = rules.catalog
        switch command {
        case .reserve(let request):
            return users.withBook(of: request.user) {
                reserve(request, now: now, rules: rules, slots: &slots, users: &$0)
            }.outcome(Outcome.booked)
        case .reserveAnySocket(let request):
            return users.withBook(of: request.user) {
                reserveAny(request, now: now, rules: rules, slots: &slots, users: &$0)
            }.outcome(Outcome.booked)
        case .hold(let ref, let user, let reminder):
            return users.withBook(of: user) {
                hold(ref, user: user, reminder: reminder, now: now, rules: rules, slots: &slots, users: &$0)
            }.outcome { .held(slots.hold($0, catalog: catalog)) }
        case .confirm(let ref, let user):
            return users.withBook(of: user) {
                confirm(ref, by: user, now: now, rules: rules, slots: &slots, users: &$0)
            }.outcome {
                .confirmed(
                    Reservation(booking: slots.booking(record: $0.record, catalog: catalog), isReplay: $0.isRepeat))
            }
        case .releaseHold(let ref, let user):
            return users.withBook(of: user) {
                releaseHold(ref, by: user, now: now, rules: rules, slots: &slots, users: &$0)
            }.outcome { .holdReleased(slots.hold($0, catalog: catalog)) }
        case .reschedule(let request, _):
            let from = slots.record(of: request.booking).map { catalog.slot(slots.records[$0].ref) }
            return users.withBook(of: request.user) {
                reschedule(request, now: now, rules: rules, slots: &slots, users: &$0)
            }.outcome { moved in
                guard !moved.isReplay, let from else { return .rescheduled(moved, move: nil) }
                let move = BookingMove(
                    booking: moved.booking.id, user: moved.booking.user, from: from, to: moved.booking.slot,
                    start: moved.booking.start, requestID: request.requestID)
                return .rescheduled(moved, move: move)
            }
        case .cancel(let id, let user):
            return cancel(id, by: user, now: now, rules: rules, slots: &slots, users: &users)
        case .checkIn(let id, let user, let code):
            return checkIn(id, by: user, accessCode: code, now: now, rules: rules, slots: &slots, users: &users)
        case .checkOut(let id, let user):
            return checkOut(id, by: user, now: now, rules: rules, slots: &slots, users: &users)
        case .changeAvailability(let change, let rule, _):
            let decided = changeAvailability(change, rule: rule, now: now, rules: rules, slots: &slots, users: &users)
            return decided.outcome { records in
                .availabilityChanged(change, displaced: records.map { slots.booking(record: $0, catalog: catalog) })
            }
        }
    }

    /// The cancel of booking `id` by `user`, as an outcome.
    private static func cancel(
        _ id: BookingID, by user: UserID, now: Int64, rules: Rules, slots: inout SlotBook, users: inout some UserBooks
    ) -> Outcome {
        guard let record = slots.record(of: id) else { return .refused(missing(id, by: user, slots: slots)) }
        let reason = users.withBook(of: user) {
            cancel(record: record, by: user, now: now, rules: rules, slots: &slots, users: &$0)
        }
        if let reason { return .refused(rules.cancelRejection(reason, of: slots.records[record], id: id, by: user)) }
        return .cancelled(slots.booking(record: record, catalog: rules.catalog))
    }

    /// The check-in of booking `id` by `user`, as an outcome (a repeat when it already was).
    private static func checkIn(
        _ id: BookingID, by user: UserID, accessCode: String?, now: Int64, rules: Rules, slots: inout SlotBook,
        users: inout some UserBooks
    ) -> Outcome {
        guard let record = slots.record(of: id) else { return .refused(missing(id, by: user, slots: slots)) }
        let isRepeat = slots.checkIns[Int32(truncatingIfNeeded: record)] != nil
        let reason = users.withBook(of: user) {
            checkIn(
                record: record, by: user, accessCode: accessCode, now: now, rules: rules, slots: &slots, users: &$0)
        }
        if let reason {
            let r = slots.records[record]
            return .refused(rules.checkInRejection(reason, ref: r.ref, start: r.start, id: id, by: user, now: now))
        }
        return .checkedIn(slots.booking(record: record, catalog: rules.catalog), isRepeat: isRepeat)
    }

    /// The check-out of booking `id` by `user`, as an outcome.
    private static func checkOut(
        _ id: BookingID, by user: UserID, now: Int64, rules: Rules, slots: inout SlotBook, users: inout some UserBooks
    ) -> Outcome {
        guard let record = slots.record(of: id) else { return .refused(missing(id, by: user, slots: slots)) }
        if let reason = checkOut(record: record, by: user, now: now, slots: &slots, users: &users) {
            return .refused(
                Rejection(reason, slot: rules.catalog.slot(slots.records[record].ref), booking: id, user: user))
        }
        return .checkedOut(slots.booking(record: record, catalog: rules.catalog))
    }

    /// The refusal of a command on booking `id` this book does not hold: released, or unknown.
    static func missing(_ id: BookingID, by user: UserID, slots: SlotBook) -> Rejection {
        Rejection(slots.wasReleased(id) ? .released : .unknownBooking, booking: id, user: user)
    }
}

extension Result where Failure == Rejection {
    /// The outcome of a decision: `success`'s for a value, ``Outcome/refused(_:)`` for a refusal.
    @inline(__always)
    func outcome(_ success: (Success) -> Outcome) -> Outcome {
        switch self {
        case .success(let value): success(value)
        case .failure(let rejection): .refused(rejection)
        }
    }
}
