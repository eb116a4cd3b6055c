/// The shape a cancel and a check-in share: one booking's record decided under its station's and
/// its user's state, then a refusal turned into its full ``Rejection``. ``Ledger`` and
/// ``Scheduler`` each run it once (``Ledger/changeBooking(_:by:at:_:)``,
/// ``Scheduler/changeBooking(_:by:at:_:)``), choosing only the locks.
struct BookingChange: Sendable {
    /// Why not, or `nil` when the change is made (and journalled).
    var decide:
        @Sendable (
            _ record: Int, _ user: UserID, _ now: Int64, _ rules: Rules, _ slots: inout SlotBook,
            _ users: inout UserBook
        )
            -> Rejection.Reason?
    /// The full refusal of `reason` for the booking stored as `record`.
    var reject:
        @Sendable (
            _ rules: Rules, _ reason: Rejection.Reason, _ record: BookingRecord, _ id: BookingID, _ user: UserID,
            _ now: Int64
        )
            -> Rejection

    static let cancel = BookingChange(
        decide: { Decisions.cancel(record: $0, by: $1, now: $2, rules: $3, slots: &$4, users: &$5) },
        reject: { rules, reason, record, id, user, _ in rules.cancelRejection(reason, of: record, id: id, by: user) })

    static let checkIn = BookingChange(
        decide: { Decisions.checkIn(record: $0, by: $1, now: $2, rules: $3, slots: &$4, users: &$5) },
        reject: { $0.checkInRejection($1, ref: $2.ref, start: $2.start, id: $3, by: $4, now: $5) })
}

extension Ledger {
    /// Runs `change` on booking `id`: an id this ledger never assigned is unknown, one whose date
    /// was released is `released`.
    mutating func changeBooking(_ id: BookingID, by user: UserID, at now: Instant, _ change: BookingChange)
        throws(Rejection) -> Booking
    {
        guard let record = slots.record(of: id) else {
            throw Rejection(slots.wasReleased(id) ? .released : .unknownBooking, booking: id, user: user)
        }
        if let reason = change.decide(record, user, now.secondsSinceEpoch, rules, &slots, &users) {
            throw change.reject(rules, reason, slots.records[record], id, user, now.secondsSinceEpoch)
        }
        return slots.booking(record: record, catalog: rules.catalog)
    }
}

extension Scheduler {
    /// Runs `change` on booking `id` under its shard lock, then its user's stripe.
    func changeBooking(_ id: BookingID, by user: UserID, at now: Instant, _ change: BookingChange)
        throws(Rejection) -> Booking
    {
        guard let shard = shard(of: id) else { throw Rejection(.unknownBooking, booking: id, user: user) }
        let stripe = stripe(of: user)
        let rules = rules
        let result: Result<Booking, Rejection> = shards.withLock(shard) { slots in
            guard let record = slots.record(of: id) else {
                return .failure(Rejection(slots.wasReleased(id) ? .released : .unknownBooking, booking: id, user: user))
            }
            let reason = stripes.withLock(stripe) { users in
                change.decide(record, user, now.secondsSinceEpoch, rules, &slots, &users)
            }
            guard let reason else { return .success(slots.booking(record: record, catalog: rules.catalog)) }
            return .failure(change.reject(rules, reason, slots.records[record], id, user, now.secondsSinceEpoch))
        }
        return try result.get()
    }
}
