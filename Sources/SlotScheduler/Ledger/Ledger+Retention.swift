extension Ledger {
    /// Releases the dates before `cutoff`: their day blocks, occupancy cells and booking
    /// records leave memory, so a ledger that runs for a year holds about its open horizon.
    ///
    /// Keep the journal (the ``events`` taken before the call, or a journal store's files) as the
    /// record of what happened. Afterwards:
    /// - ``lookup(_:)`` answers ``BookingLookup/released`` for a released booking, ``booking(_:)``
    ///   `nil`, and cancelling one is refused with ``Rejection/Reason/released``;
    /// - a reservation on a released date is refused with ``Rejection/Reason/slotInPast``
    ///   (whatever the caller's `now`), and an availability change with
    ///   ``Rejection/Reason/released``;
    /// - released bookings count towards no user's limit (they had all ended), and
    ///   ``bookings(of:at:)``, ``allBookings``, ``snapshot()`` and ``remindersDue(in:)`` leave them out;
    /// - the request ids of released bookings are forgotten: a retry of such a request is
    ///   refused (its date is released, so it never books twice), and the id may name a new request;
    ///   so are the request ids of reschedules to a released date (a retry is refused, it never
    ///   moves twice);
    /// - the in-memory journal restarts: ``events`` holds what happens after the release, to be
    ///   replayed onto the ``snapshot()`` taken at it (``eventCount`` keeps counting).
    ///
    /// A cutoff at or before the current ``releasedBefore`` changes nothing.
    /// - Throws: ``RetentionError`` when `cutoff` is after ``Rules/latestReleasableDate(at:)``.
    /// - Complexity: O(released days · sockets + released bookings), amortised; plus the active
    ///   bookings of the users who held released ones.
    public mutating func releaseDays(before cutoff: LocalDate, at now: Instant) throws(RetentionError) {
        try rules.checkRelease(before: cutoff, at: now)
        var (active, requests) = slots.releaseDays(before: cutoff.dayNumber)
        active.sort { $0.user < $1.user }
        users.release(active[...], forgetting: requests)
        users.forgetMoves(before: cutoff.dayNumber)
        users.forgetClosed(before: cutoff.dayNumber)
        #if DEBUG
        checkInvariantsAmortized()
        #endif
    }

    /// The first date not released, if a release happened.
    public var releasedBefore: LocalDate? {
        slots.releasedBefore == .min ? nil : LocalDate(dayNumber: slots.releasedBefore)
    }

    /// What `id` names: a booking held (in its current status), a released one, or nothing.
    public func lookup(_ id: BookingID) -> BookingLookup {
        if let record = slots.record(of: id) { return .booking(slots.booking(record: record, catalog: rules.catalog)) }
        return slots.wasReleased(id) ? .released : .unknown
    }
}
